/* Full-text search hits (pure data, no DOM): the query URL, snippet pieces, a hit's link, the
 * total line, hits grouped by session, exact matches first. Serve's and a site's search share it. */
const searchHits = (() => {
  const DEBOUNCE_MS = 200;
  const PENDING_MS = 800; // while the server still indexes: ask again this long after an answer
  const WORD = /[\p{L}\p{N}]+/gu;

  // The API URL of a query at the server's search route (empty query: no request at all); order
  // 'newest' asks for the newest entries first (else the best matches).
  function queryUrl(api, query, limit, offset, order) {
    const q = String(query == null ? '' : query).trim();
    if (!q) return '';
    const page = api + '?q=' + encodeURIComponent(q) + '&limit=' + String(limit || 20);
    return (offset ? page + '&offset=' + String(offset) : page) + (order === 'newest' ? '&order=newest' : '');
  }

  // What makes two hits of a session the same text (a todo list echoed, a tool's output repeated):
  // their snippets' words, case and spacing and the cut's ellipses aside.
  function repeatKey(snippet) {
    return String(snippet || '').toLowerCase().replace(/…/g, ' ').replace(/\s+/g, ' ').trim();
  }

  function plural(n, word) {
    return n.toLocaleString('en-US') + ' ' + word + (n === 1 ? '' : 's');
  }

  // "46 messages in 5 sessions": every hit of the query, not the ones shown so far.
  function totalText(total, sessions) {
    if (!total) return 'No message matches.';
    return plural(total, 'message') + ' in ' + plural(sessions, 'session');
  }

  // While the server still indexes files (a fresh server's first searches), the hits so far and
  // what is left: the page asks again until nothing is.
  function pendingText(total, sessions, pending) {
    const found = total ? plural(total, 'message') + ' in ' + plural(sessions, 'session') + ' so far' : 'No match so far';
    return found + '; still indexing ' + plural(pending, 'file') + '\u2026';
  }

  // Hits grouped by session, groups in the order their first hit ranks; a later page's hit joins
  // its session's group. keyOf(hit) names the session (its page's link).
  function grouper(keyOf) {
    const groups = [];
    const byKey = new Map();
    return {
      groups,
      add(hit) {
        const key = keyOf(hit);
        let group = byKey.get(key);
        const fresh = !group;
        if (fresh) {
          group = { key, hits: [] };
          byKey.set(key, group);
          groups.push(group);
        }
        group.hits.push(hit);
        return { group, fresh };
      },
    };
  }

  // The words of a query, lower case (quotes, operators and punctuation dropped).
  function queryWords(query) {
    return (String(query || '').toLowerCase().match(WORD) || []).filter((w) => w !== 'and' && w !== 'or' && w !== 'not');
  }

  // 0 when the marked words of a hit are the query's words exactly (a phrase: all of them, in
  // order, next to each other in the text), 1 for stems and partial matches: exact hits rank first.
  function matchRank(query, text, marks) {
    const words = queryWords(query);
    if (!words.length) return 1;
    const lower = String(text || '').toLowerCase();
    const marked = new Set(snippetParts(lower, marks).filter((p) => p[1]).map((p) => p[0].trim()));
    if (!words.every((w) => marked.has(w))) return 1;
    if (words.length === 1) return 0;
    return (lower.match(WORD) || []).join(' ').includes(words.join(' ')) ? 0 : 1;
  }

  // A stable sort by rank: equal ranks keep the engine's order.
  function exactFirst(items, rankOf) {
    return items.map((item, i) => [rankOf(item), i, item]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((x) => x[2]);
  }

  // Newest first by an ISO time (a stable sort: equal times keep the engine's order; no time last).
  function newestFirst(items, timeOf) {
    const key = (item) => { const t = timeOf(item); return typeof t === 'string' ? t : ''; };
    return items.map((item, i) => [key(item), i, item])
      .sort((a, b) => (a[0] === b[0] ? a[1] - b[1] : a[0] < b[0] ? 1 : -1)).map((x) => x[2]);
  }

  // [text, isMatch] pieces of a snippet; marks outside the text or overlapping are ignored.
  function snippetParts(text, marks) {
    const s = typeof text === 'string' ? text : '';
    const pieces = [];
    let at = 0;
    for (const mark of Array.isArray(marks) ? marks : []) {
      const start = Number(mark && mark[0]);
      const end = Number(mark && mark[1]);
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < at || end <= start || end > s.length) continue;
      if (start > at) pieces.push([s.slice(at, start), false]);
      pieces.push([s.slice(start, end), true]);
      at = end;
    }
    if (at < s.length) pieces.push([s.slice(at), false]);
    return pieces;
  }

  // Only the server's own session links are followed (a same-origin path under its session
  // route's prefix, such as /s/).
  function safeHref(href, prefix) {
    const ok = typeof href === 'string' && typeof prefix === 'string' && prefix.startsWith('/') && !prefix.startsWith('//');
    return ok && href.startsWith(prefix) && !href.startsWith(prefix + '/') ? href : '';
  }

  // The newest answer wins: a reply to an older query than the last one sent is dropped.
  function sequencer() {
    let sent = 0;
    return { next: () => ++sent, isCurrent: (n) => n === sent };
  }

  return { DEBOUNCE_MS, PENDING_MS, queryUrl, repeatKey, snippetParts, safeHref, sequencer, totalText, pendingText, grouper, queryWords, matchRank, exactFirst, newestFirst };
})();
if (typeof module === 'object' && module.exports) module.exports = searchHits;
