/* Usage dashboard data (pure, no DOM): filter the packed rows, total them, group them over time,
 * rank sessions, lay out the calendar, and write what is shown as CSV or JSON.
 * The rows come from pages/usage_data.py: eleven numbers each (see ROW below). The rules are
 * those of `sessiontree stats`: a project is its folder and the folders under it, a date range
 * counts whole days, a cost is recorded or estimated, a model with no price is named. The days
 * are the reader's: the rows come per UTC quarter hour (every zone's offset is whole quarters),
 * put into days in the browser's time zone here. */
const usageData = (() => {
  const FORMAT = 2;
  const W = 11;
  const ROW = { session: 0, day: 1, model: 2, messages: 3, input: 4, output: 5, cacheRead: 6, cacheWrite: 7, cost: 8, estimated: 9, unpriced: 10 };
  const GROUPS = ['project', 'model', 'agent'];
  const MEASURES = ['cost', 'tokens'];
  const PALETTE = 8;
  const DAY_MS = 86400000;

  const dayFormats = new Map();

  // The day (YYYY-MM-DD) of an epoch-ms time in a time zone (the browser's when none is named).
  function dayIn(ms, timeZone) {
    const key = timeZone || '';
    let f = dayFormats.get(key);
    if (!f) {
      f = new Intl.DateTimeFormat('en-US', { timeZone: timeZone || undefined, year: 'numeric', month: '2-digit', day: '2-digit' });
      dayFormats.set(key, f);
    }
    const parts = {};
    for (const p of f.formatToParts(new Date(ms))) parts[p.type] = p.value;
    return parts.year + '-' + parts.month + '-' + parts.day;
  }

  // The zone the days are in: its IANA name ("Asia/Kolkata"), "UTC" when the browser names none.
  function zoneName(timeZone) {
    return timeZone || new Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  }

  // The packed rows with each quarter hour (an index into `times`) turned into its day (an index
  // into the sorted days it falls on in the zone).
  function rowsByDay(rows, times, timeZone) {
    const dayOfTime = times.map((t) => dayIn(t, timeZone));
    const days = [...new Set(dayOfTime)].sort();
    const at = new Map(days.map((d, k) => [d, k]));
    const out = rows.slice();
    for (let i = ROW.day; i < out.length; i += W) {
      const t = out[i];
      out[i] = t >= 0 && t < times.length ? at.get(dayOfTime[t]) : -1;
    }
    return { days, rows: out };
  }

  // The packed data as the page carries it, with its lists checked; null when it is not ours.
  // `timeZone`: the zone of the days (tests name one; the page leaves it to the browser).
  function decode(raw, timeZone) {
    if (!raw || raw.format !== FORMAT || !Array.isArray(raw.rows) || raw.rows.length % W) return null;
    const list = (v) => (Array.isArray(v) ? v.map((x) => String(x == null ? '' : x)) : []);
    const sessions = (Array.isArray(raw.sessions) ? raw.sessions : []).map((s) => ({
      title: String(s[0] || ''), key: String(s[1] || ''), project: s[2] | 0, agent: s[3] | 0,
      href: typeof s[4] === 'string' ? s[4] : null,
    }));
    const zero = new Set(Array.isArray(raw.zeroModels) ? raw.zeroModels : []);
    const times = (Array.isArray(raw.times) ? raw.times : []).map((t) => (Number.isFinite(t) ? t : 0));
    const { days, rows } = rowsByDay(raw.rows, times, timeZone);
    return {
      zeroModel: list(raw.models).map((_, k) => zero.has(k)), zone: zoneName(timeZone),
      days, models: list(raw.models), projects: list(raw.projects),
      agents: list(raw.agents), agentLabels: list(raw.agentLabels), sessions, rows,
    };
  }

  function inProject(cwd, project) {
    const folder = project.replace(/[/\\]+$/, '') || '/';
    return cwd === folder || cwd.startsWith(folder.endsWith('/') ? folder : folder + '/');
  }

  // The row offsets the filters keep: {from, to} (YYYY-MM-DD, inclusive), project, agent, model.
  function select(data, filters) {
    const f = filters || {};
    const keepSession = data.sessions.map((s) =>
      (!f.project || inProject(data.projects[s.project] || '', f.project)) &&
      (!f.agent || data.agents[s.agent] === f.agent));
    const model = f.model ? data.models.indexOf(f.model) : -1;
    const dated = Boolean(f.from || f.to);
    const keepDay = data.days.map((d) => (!f.from || d >= f.from) && (!f.to || d <= f.to));
    const rows = data.rows;
    const picked = [];
    for (let i = 0; i < rows.length; i += W) {
      if (!keepSession[rows[i]]) continue;
      if (f.model && rows[i + ROW.model] !== model) continue;
      const day = rows[i + ROW.day];
      if (dated && (day < 0 || !keepDay[day])) continue;
      picked.push(i);
    }
    return picked;
  }

  function emptyTotal(key, label) {
    return { key, label: label == null ? key : label, messages: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, tokens: 0, cost: null, estimated: 0, unpriced: [], zero: [] };
  }

  function add(total, data, i) {
    const r = data.rows;
    total.messages += r[i + ROW.messages];
    total.input += r[i + ROW.input];
    total.output += r[i + ROW.output];
    total.cacheRead += r[i + ROW.cacheRead];
    total.cacheWrite += r[i + ROW.cacheWrite];
    total.tokens += r[i + ROW.input] + r[i + ROW.output] + r[i + ROW.cacheRead] + r[i + ROW.cacheWrite];
    if (r[i + ROW.cost] !== null) total.cost = (total.cost || 0) + r[i + ROW.cost];
    total.estimated += r[i + ROW.estimated];
    if (r[i + ROW.unpriced] > 0) {
      const name = data.models[r[i + ROW.model]];
      if (!total.unpriced.includes(name)) total.unpriced.push(name);
    }
    if (data.zeroModel[r[i + ROW.model]] && r[i + ROW.cost] === 0) {
      const name = data.models[r[i + ROW.model]];
      if (!total.zero.includes(name)) total.zero.push(name);
    }
  }

  // The panel of totals: tokens, cost, cache hit ratio, sessions and active days.
  function totals(data, picked) {
    const total = emptyTotal('total');
    const sessions = new Set();
    const days = new Set();
    for (const i of picked) {
      add(total, data, i);
      sessions.add(data.rows[i]);
      if (data.rows[i + ROW.day] >= 0) days.add(data.rows[i + ROW.day]);
    }
    const prompt = total.input + total.cacheRead + total.cacheWrite;
    total.hitRatio = prompt > 0 ? total.cacheRead / prompt : null;
    total.sessions = sessions.size;
    total.activeDays = days.size;
    return total;
  }

  function measureOf(total, measure) {
    return measure === 'tokens' ? total.tokens : total.cost || 0;
  }

  // Rank like `stats`: most cost, then most tokens, then by key.
  function byCost(a, b) {
    return (b.cost || 0) - (a.cost || 0) || b.tokens - a.tokens || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  }

  function dayNumber(day) {
    return Math.floor(Date.parse(day + 'T00:00:00Z') / DAY_MS);
  }

  function dayText(n) {
    return new Date(n * DAY_MS).toISOString().slice(0, 10);
  }

  // Buckets of the chart: days up to about three months, weeks (from Monday) up to two years, months after.
  function unitFor(first, last) {
    const span = dayNumber(last) - dayNumber(first);
    return span <= 92 ? 'day' : span <= 731 ? 'week' : 'month';
  }

  function bucketOf(day, unit) {
    if (unit === 'day') return day;
    if (unit === 'month') return day.slice(0, 7);
    const n = dayNumber(day);
    return dayText(n - ((new Date(n * DAY_MS).getUTCDay() + 6) % 7));
  }

  function bucketsBetween(first, last, unit) {
    const out = [];
    if (unit === 'month') {
      let [y, m] = first.split('-').map(Number);
      const end = last.slice(0, 7);
      for (;;) {
        const text = y + '-' + String(m).padStart(2, '0');
        out.push(text);
        if (text >= end || out.length > 1200) break;
        m += 1;
        if (m > 12) { m = 1; y += 1; }
      }
      return out;
    }
    const step = unit === 'week' ? 7 : 1;
    for (let n = dayNumber(bucketOf(first, unit)); n <= dayNumber(last); n += step) out.push(dayText(n));
    return out;
  }

  function groupKey(data, i, by) {
    if (by === 'model') return data.models[data.rows[i + ROW.model]];
    const session = data.sessions[data.rows[i]];
    if (by === 'agent') return data.agentLabels[session.agent] || data.agents[session.agent];
    return data.projects[session.project];
  }

  // Cost or tokens per time bucket, stacked by group (the top eight, then one "other" group),
  // and the table of it: one row per bucket and group that has messages.
  function series(data, picked, by, measure) {
    const dated = picked.filter((i) => data.rows[i + ROW.day] >= 0);
    const empty = { unit: 'day', buckets: [], groups: [], table: [], top: 0, by, measure };
    if (!dated.length) return empty;
    let first = null;
    let last = null;
    for (const i of dated) {
      const d = data.rows[i + ROW.day];
      if (first === null || d < first) first = d;
      if (last === null || d > last) last = d;
    }
    const unit = unitFor(data.days[first], data.days[last]);
    const buckets = bucketsBetween(data.days[first], data.days[last], unit);
    const bucketAt = new Map(buckets.map((b, k) => [b, k]));
    const overall = new Map();
    for (const i of dated) {
      const key = groupKey(data, i, by);
      if (!overall.has(key)) overall.set(key, emptyTotal(key));
      add(overall.get(key), data, i);
    }
    const ranked = [...overall.values()].sort(byCost);
    const rest = ranked.length > PALETTE + 1 ? ranked.slice(PALETTE).map((g) => g.key) : [];
    const otherName = rest.length ? 'other (' + rest.length + ' ' + by + 's)' : null;
    const folded = new Map(rest.map((k) => [k, otherName]));
    const groups = ranked.slice(0, rest.length ? PALETTE : ranked.length).map((g, k) => ({ key: g.key, colour: k }));
    if (otherName) groups.push({ key: otherName, colour: -1 });
    const groupAt = new Map(groups.map((g, k) => [g.key, k]));
    const cells = buckets.map(() => groups.map((g) => emptyTotal(g.key)));
    for (const i of dated) {
      const raw = groupKey(data, i, by);
      const g = groupAt.get(folded.get(raw) || raw);
      add(cells[bucketAt.get(bucketOf(data.days[data.rows[i + ROW.day]], unit))][g], data, i);
    }
    const sums = groups.map(() => emptyTotal(''));
    let top = 0;
    const table = [];
    buckets.forEach((bucket, b) => {
      let stack = 0;
      groups.forEach((g, k) => {
        const cell = cells[b][k];
        stack += measureOf(cell, measure);
        for (const f of ['messages', 'input', 'output', 'cacheRead', 'cacheWrite', 'tokens', 'estimated']) sums[k][f] += cell[f];
        if (cell.cost !== null) sums[k].cost = (sums[k].cost || 0) + cell.cost;
        for (const name of cell.unpriced) if (!sums[k].unpriced.includes(name)) sums[k].unpriced.push(name);
        for (const name of cell.zero) if (!sums[k].zero.includes(name)) sums[k].zero.push(name);
        if (cell.messages > 0) table.push({ period: bucket, group: g.key, ...cell });
      });
      top = Math.max(top, stack);
    });
    groups.forEach((g, k) => { g.total = sums[k]; g.values = cells.map((row) => measureOf(row[k], measure)); });
    return { unit, buckets, groups, table, top, by, measure };
  }

  // The sessions that cost most (then used most tokens), at most ``count``, with their links.
  function topSessions(data, picked, count) {
    const per = new Map();
    for (const i of picked) {
      const s = data.rows[i];
      if (!per.has(s)) {
        const session = data.sessions[s];
        per.set(s, Object.assign(emptyTotal(session.key, session.title), { href: session.href, agent: data.agentLabels[session.agent] || '' }));
      }
      add(per.get(s), data, i);
    }
    return [...per.values()].sort(byCost).slice(0, count);
  }

  // Activity by day: every day of the last year of the range (weeks from Monday), 0-4 levels.
  function calendar(data, picked, measure) {
    const per = new Map();
    for (const i of picked) {
      const d = data.rows[i + ROW.day];
      if (d < 0) continue;
      if (!per.has(d)) per.set(d, emptyTotal(data.days[d]));
      add(per.get(d), data, i);
    }
    if (!per.size) return { days: [], max: 0, measure };
    const known = [...per.keys()].sort((a, b) => a - b);
    const last = dayNumber(data.days[known[known.length - 1]]);
    const first = Math.max(dayNumber(data.days[known[0]]), last - 370);
    const start = first - ((new Date(first * DAY_MS).getUTCDay() + 6) % 7);
    const byDay = new Map([...per.values()].map((t) => [t.key, t]));
    let max = 0;
    for (const t of byDay.values()) max = Math.max(max, measureOf(t, measure));
    const days = [];
    for (let n = start; n <= last; n += 1) {
      const day = dayText(n);
      const t = byDay.get(day);
      const value = t ? measureOf(t, measure) : 0;
      const level = !t || !t.messages ? 0 : max > 0 ? Math.min(4, 1 + Math.floor((value / max) * 3.999)) : 1;
      days.push({ day, week: Math.floor((n - start) / 7), weekday: (n - start) % 7, value, messages: t ? t.messages : 0, level, total: t || null });
    }
    return { days, max, measure };
  }

  // One formatter each: toLocaleString makes a new one per call, a hundred times slower.
  const CENTS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

  // Money as `stats` shows it: $1.23, four digits under a cent, "-" when nothing recorded one.
  function dollars(amount) {
    if (amount === null || amount === undefined) return '-';
    if (amount >= 0.01 || amount === 0) return '$' + CENTS.format(amount);
    return '$' + amount.toFixed(4);
  }

  function costText(total) {
    let text = dollars(total.cost);
    if (total.estimated > 0 && total.cost !== null) text += ' estimated';
    if (total.unpriced.length) text += ' (no price for ' + total.unpriced.join(', ') + ')';
    if (total.zero.length) text += ' (recorded as $0: ' + total.zero.join(', ') + ')';
    return text;
  }

  // The cost as a table cell shows it: the models without a price counted, not named (costText names them).
  function costShort(total) {
    const missing = new Set([...total.unpriced, ...total.zero]).size;
    const models = missing + (missing === 1 ? ' model' : ' models');
    if (total.cost === null) return missing ? 'no price for ' + models : '-';
    let text = dollars(total.cost);
    if (total.estimated > 0) text += ' estimated';
    return missing ? text + ' + ' + models + ' without a price' : text;
  }

  function formatTokens(value) {
    for (const [size, suffix] of [[1e9, 'B'], [1e6, 'M'], [1e3, 'k']]) {
      if (Math.abs(value) >= size) return (value / size).toFixed(1).replace(/\.0$/, '') + suffix;
    }
    return String(Math.round(value));
  }

  function formatCount(value) {
    return COUNT.format(Number(value));
  }

  function percent(ratio) {
    return ratio === null ? '-' : (ratio * 100).toFixed(1) + '%';
  }

  const CSV_FIELDS = ['period', 'group', 'messages', 'input', 'output', 'cacheRead', 'cacheWrite', 'tokens', 'cost', 'costEstimated', 'unpricedModels', 'zone'];

  function csvCell(value) {
    const text = value === null || value === undefined ? '' : String(value);
    // A leading = + - @ would run as a formula in a spreadsheet: quote it with a leading '.
    const safe = /^[=+\-@\t\r]/.test(text) ? "'" + text : text;
    return /[",\n\r]/.test(safe) ? '"' + safe.replace(/"/g, '""') + '"' : safe;
  }

  function csvRow(row, zone) {
    const values = {
      ...row, cost: row.cost === null ? '' : Math.round(row.cost * 1e6) / 1e6,
      costEstimated: row.estimated > 0, unpricedModels: row.unpriced.join(' '), zone,
    };
    return CSV_FIELDS.map((f) => csvCell(values[f])).join(',');
  }

  // The chart's table as CSV: one line per period and group, as the table under the chart shows it,
  // and the zone its periods are days of.
  function toCsv(shown) {
    return [CSV_FIELDS.join(','), ...shown.series.table.map((row) => csvRow(row, shown.zone))].join('\n') + '\n';
  }

  function plainTotal(t) {
    const out = { key: t.key, messages: t.messages, input: t.input, output: t.output, cacheRead: t.cacheRead, cacheWrite: t.cacheWrite, tokens: t.tokens, cost: t.cost === null ? null : Math.round(t.cost * 1e6) / 1e6, costEstimated: t.estimated > 0, unpricedModels: t.unpriced.slice(), zeroCostModels: t.zero.slice() };
    if (t.label !== t.key) out.title = t.label;
    return out;
  }

  // Everything shown, as JSON: the zone of its days, the filters, the totals, the chart's table, the
  // top sessions, the days.
  function toJson(shown) {
    const total = plainTotal(shown.totals);
    Object.assign(total, { sessions: shown.totals.sessions, activeDays: shown.totals.activeDays, cacheHitRatio: shown.totals.hitRatio });
    return JSON.stringify({
      zone: shown.zone, filters: shown.filters, total,
      over: { by: shown.series.by, unit: shown.series.unit, rows: shown.series.table.map((r) => ({ period: r.period, group: r.group, ...plainTotal(r) })) },
      topSessions: shown.top.map((t) => ({ ...plainTotal(t), agent: t.agent })),
      days: shown.calendar.days.filter((d) => d.total).map((d) => ({ day: d.day, ...plainTotal(d.total) })),
    }, null, 2) + '\n';
  }

  const STATE_KEYS = ['from', 'to', 'project', 'agent', 'model', 'by', 'measure'];

  // The view's state from a location.hash (unknown keys and values dropped).
  function parseState(hash) {
    const state = { from: '', to: '', project: '', agent: '', model: '', by: 'model', measure: 'cost' };
    String(hash || '').replace(/^#/, '').split('&').forEach((part) => {
      const eq = part.indexOf('=');
      if (eq < 0) return;
      let key; let value;
      try {
        key = decodeURIComponent(part.slice(0, eq));
        value = decodeURIComponent(part.slice(eq + 1));
      } catch (_) { return; }
      if (!STATE_KEYS.includes(key)) return;
      if ((key === 'from' || key === 'to') && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return;
      if (key === 'by' && !GROUPS.includes(value)) return;
      if (key === 'measure' && !MEASURES.includes(value)) return;
      state[key] = value;
    });
    return state;
  }

  function formatState(state) {
    const defaults = parseState('');
    return STATE_KEYS.filter((k) => state[k] && state[k] !== defaults[k])
      .map((k) => k + '=' + encodeURIComponent(state[k])).join('&');
  }

  // Everything the page shows for one state.
  function view(data, state) {
    const filters = { from: state.from, to: state.to, project: state.project, agent: state.agent, model: state.model };
    const picked = select(data, filters);
    return {
      zone: data.zone,
      filters,
      totals: totals(data, picked),
      series: series(data, picked, state.by, state.measure),
      top: topSessions(data, picked, 20),
      calendar: calendar(data, picked, state.measure),
    };
  }

  return {
    FORMAT, GROUPS, MEASURES, PALETTE, CSV_FIELDS, decode, dayIn, inProject, select, totals, series, topSessions,
    calendar, unitFor, bucketOf, bucketsBetween, dollars, costText, costShort, formatTokens, formatCount, percent,
    toCsv, toJson, parseState, formatState, view,
  };
})();
if (typeof module === 'object' && module.exports) module.exports = usageData;
