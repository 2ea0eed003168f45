/* The sessions pane's data work (pure, no DOM): which sessions a filter shows, newest activity
 * first; what grew since it was last seen; the previous and next session. */
const sessionList = (() => {
  // When "YYYY-MM-DD" (plus `after` days) begins in the reader's zone (ms), or null: the reader's
  // days, as the usage page's and every time a page shows (a day may be 23 or 25 hours long).
  function dayStart(text, after) {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(text || '').trim());
    return m ? new Date(+m[1], +m[2] - 1, +m[3] + (after || 0)).getTime() : null;
  }

  // The sessions a filter shows: {scope: 'project'|'all', project, agent, model, from, to}
  // (from/to: "YYYY-MM-DD", inclusive days of last activity, the reader's); newest activity first.
  function visible(sessions, filter) {
    const f = filter || {};
    const from = dayStart(f.from);
    const end = dayStart(f.to, 1);
    const out = sessions.filter((s) =>
      (f.scope !== 'project' || s.p === f.project) &&
      (!f.agent || s.a === f.agent) &&
      (!f.model || (Array.isArray(s.m) && s.m.includes(f.model))) &&
      (from === null || s.u >= from) &&
      (end === null || s.u < end));
    return out.sort((a, b) => b.u - a.u || (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  }

  // The distinct values of a field, sorted (for the filters' choices).
  function choices(sessions, pick) {
    const seen = new Set();
    for (const s of sessions) for (const v of [].concat(pick(s) || [])) if (v) seen.add(v);
    return [...seen].sort();
  }

  // How many messages arrived since `seen` ({n: count when last seen}), 0 when none or unknown.
  function unseen(session, seen) {
    if (!seen || typeof seen.n !== 'number' || typeof session.n !== 'number') return 0;
    return Math.max(0, session.n - seen.n);
  }

  // The sessions before and after `key` in a shown list (null at either end).
  function neighbours(list, key) {
    const i = list.findIndex((s) => s.k === key);
    if (i < 0) return { prev: null, next: null };
    return { prev: i > 0 ? list[i - 1] : null, next: i + 1 < list.length ? list[i + 1] : null };
  }

  // "5 min", "3 h", "2 d", else the local date: how long ago the last activity was.
  function ago(ms, now) {
    const s = Math.max(0, Math.round((now - ms) / 1000));
    if (s < 60) return 'now';
    if (s < 3600) return Math.floor(s / 60) + ' min';
    if (s < 86400) return Math.floor(s / 3600) + ' h';
    if (s < 30 * 86400) return Math.floor(s / 86400) + ' d';
    const d = new Date(ms); // the reader's day, as every time a page shows
    return d.getFullYear() + '-' + String(d.getMonth() + 1).padStart(2, '0') + '-' + String(d.getDate()).padStart(2, '0');
  }

  // The index of the first entry not yet seen, from the page's entries (file order): entries after
  // the `e` first ones when the page counted them, else those newer than the last visit `t` (ms).
  function firstUnseen(entries, seen) {
    if (!seen) return -1;
    if (typeof seen.e === 'number') return seen.e < entries.length ? seen.e : -1;
    if (typeof seen.t !== 'number') return -1;
    const at = entries.findIndex((e) => typeof e.ts === 'string' && Date.parse(e.ts) > seen.t);
    return at;
  }

  // A server's window query (URLSearchParams entries) for a filter: {scope, project, of (the current
  // session's key), agent, model, from, to, mark}; days are the reader's, as `visible` has them.
  function windowQuery(filter) {
    const f = filter || {};
    const out = [];
    if (f.scope === 'project') out.push(['of', String(f.of || '')]);
    else if (f.project) out.push(['project', f.project]);
    if (f.agent) out.push(['agent', f.agent]);
    if (f.model) out.push(['model', f.model]);
    const from = dayStart(f.from);
    const end = dayStart(f.to, 1);
    if (from !== null) out.push(['since', String(Math.max(0, from))]);
    if (end !== null) out.push(['until', String(Math.max(0, end))]);
    if (typeof f.mark === 'number' && f.mark >= 0) out.push(['mark', String(Math.floor(f.mark))]);
    return out;
  }

  // The "last seen" baselines kept to the `most` seen last (by their time `t`): the store stays
  // bounded however many sessions the pane has shown.
  function bounded(seen, most) {
    const keys = Object.keys(seen);
    if (keys.length <= most) return seen;
    keys.sort((a, b) => (seen[b].t || 0) - (seen[a].t || 0));
    const kept = {};
    for (const k of keys.slice(0, most)) kept[k] = seen[k];
    return kept;
  }

  return { visible, choices, unseen, neighbours, ago, firstUnseen, dayStart, windowQuery, bounded };
})();
if (typeof module === 'object' && module.exports) module.exports = sessionList;
