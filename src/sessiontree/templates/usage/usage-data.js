/* Usage dashboard data (pure, no DOM): filter the packed rows, total them, group them over time,
 * lay out the calendar, read the sessions a filter keeps, and write what is shown as CSV or JSON.
 * The rows come from pages/usage_data.py: eleven numbers each (see ROW below), one per group
 * (project, agent), quarter hour and model, never per session: the sessions a filter keeps (how
 * many, the top ones) come apart, from serve's API a page at a time or a built site's `tops`. The
 * rules are those of `sessiontree stats`: a project is its folder and the folders under it, a date
 * range counts whole days, a cost is recorded or estimated, a model with no price is named. The
 * days are the reader's: the rows come per UTC quarter hour (every zone's offset is whole
 * quarters), put into days in the browser's time zone here. */
const usageData = (() => {
  const FORMAT = 3;
  const QUARTER_MS = 900000;
  const W = 11;
  const ROW = { group: 0, day: 1, model: 2, messages: 3, input: 4, output: 5, cacheRead: 6, cacheWrite: 7, cost: 8, estimated: 9, unpriced: 10 };
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
    const groups = (Array.isArray(raw.groups) ? raw.groups : []).map((g) => ({ project: g[0] | 0, agent: g[1] | 0 }));
    const zero = new Set(Array.isArray(raw.zeroModels) ? raw.zeroModels : []);
    const times = (Array.isArray(raw.times) ? raw.times : []).map((t) => (Number.isFinite(t) ? t : 0));
    const { days, rows } = rowsByDay(raw.rows, times, timeZone);
    const models = list(raw.models);
    const data = {
      zeroModel: models.map((_, k) => zero.has(k)), zone: zoneName(timeZone), times,
      dayOfTime: times.map((t) => dayIn(t, timeZone)),
      days, models, projects: list(raw.projects),
      agents: list(raw.agents), agentLabels: list(raw.agentLabels), groups, rows,
      api: typeof raw.api === 'string' ? raw.api : null, pageSize: raw.pageSize | 0 || 50, tops: null, listed: null,
      chunks: Array.isArray(raw.chunks) ? raw.chunks.map(String) : null,
    };
    if (raw.tops && typeof raw.tops === 'object') {
      data.tops = new Map(Object.entries(raw.tops).map(([k, v]) => [k, decodeListed(v)]));
    }
    if (raw.listed) data.listed = decodeListed(raw.listed);
    return data;
  }

  // A page of the sessions a filter keeps (pages/usage_data.py's listed_json): how many, from
  // where, and each as a total the table and the JSON download read.
  function decodeListed(raw) {
    if (!raw || !Array.isArray(raw.top)) return null;
    const names = (v) => (Array.isArray(v) ? v.map(String) : []);
    const n = (v) => (Number.isFinite(v) ? v : 0);
    const top = raw.top.map((s) => {
      const t = emptyTotal(String(s[1] || ''), String(s[0] || ''));
      t.agent = String(s[2] || '');
      t.href = typeof s[3] === 'string' ? s[3] : null;
      [t.messages, t.input, t.output, t.cacheRead, t.cacheWrite] = [n(s[4]), n(s[5]), n(s[6]), n(s[7]), n(s[8])];
      t.tokens = t.input + t.output + t.cacheRead + t.cacheWrite;
      t.cost = Number.isFinite(s[9]) ? s[9] : null;
      t.estimated = n(s[10]);
      t.unpriced = names(s[11]);
      t.zero = names(s[12]);
      return t;
    });
    return { count: n(raw.count), offset: n(raw.offset), top };
  }

  // The key of a built site's `tops` a filter reads: every date and "" (no filter), or one project,
  // agent or model; null for the others (a site lists the top sessions of those only).
  function filterKey(filters) {
    const f = filters || {};
    if (f.from || f.to) return null;
    const set = ['project', 'agent', 'model'].filter((k) => f[k]);
    if (set.length > 1) return null;
    return set.length ? set[0] + '=' + f[set[0]] : '';
  }

  // The quarter hours of a date range in the reader's zone, as serve's API takes them:
  // {since, until} in epoch ms (until excluded), null when no known quarter falls in it.
  function timeRange(data, filters) {
    const f = filters || {};
    if (!f.from && !f.to) return {};
    let first = -1;
    let last = -1;
    data.dayOfTime.forEach((day, k) => {
      if ((f.from && day < f.from) || (f.to && day > f.to)) return;
      if (first < 0) first = k;
      last = k;
    });
    return first < 0 ? null : { since: data.times[first], until: data.times[last] + QUARTER_MS };
  }

  // The query of serve's API for a filter's sessions from `offset` (null: no session can be kept).
  function sessionsQuery(data, filters, offset) {
    const range = timeRange(data, filters);
    if (range === null) return null;
    const params = new URLSearchParams();
    if (range.since !== undefined) { params.set('since', String(range.since)); params.set('until', String(range.until)); }
    for (const k of ['project', 'agent', 'model']) if (filters[k]) params.set(k, filters[k]);
    if (offset) params.set('offset', String(offset));
    params.set('limit', String(data.pageSize));
    return params.toString();
  }

  function inProject(cwd, project) {
    const folder = project.replace(/[/\\]+$/, '') || '/';
    return cwd === folder || cwd.startsWith(folder.endsWith('/') ? folder : folder + '/');
  }

  // The row offsets the filters keep: {from, to} (YYYY-MM-DD, inclusive), project, agent, model.
  function select(data, filters) {
    const f = filters || {};
    const keepGroup = data.groups.map((g) =>
      (!f.project || inProject(data.projects[g.project] || '', f.project)) &&
      (!f.agent || data.agents[g.agent] === f.agent));
    const model = f.model ? data.models.indexOf(f.model) : -1;
    const dated = Boolean(f.from || f.to);
    const keepDay = data.days.map((d) => (!f.from || d >= f.from) && (!f.to || d <= f.to));
    const rows = data.rows;
    const picked = [];
    for (let i = 0; i < rows.length; i += W) {
      if (!keepGroup[rows[i]]) continue;
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

  // The panel of totals: tokens, cost, cache hit ratio, sessions (from `listed`, the sessions the
  // filter keeps: null while they are asked for) and active days.
  function totals(data, picked, listed) {
    const total = emptyTotal('total');
    const days = new Set();
    for (const i of picked) {
      add(total, data, i);
      if (data.rows[i + ROW.day] >= 0) days.add(data.rows[i + ROW.day]);
    }
    const prompt = total.input + total.cacheRead + total.cacheWrite;
    total.hitRatio = prompt > 0 ? total.cacheRead / prompt : null;
    total.sessions = listed ? listed.count : null;
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
    const group = data.groups[data.rows[i]];
    if (by === 'agent') return data.agentLabels[group.agent] || data.agents[group.agent];
    return data.projects[group.project];
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

  // The sessions a filter keeps, as far as the page knows them without asking: serve's first page
  // for no filter, a built site's `tops`; undefined when only serve's API can tell, null when
  // nobody can (a built site and a filter of two values or dates).
  function listedFor(data, filters) {
    const key = filterKey(filters);
    if (data.tops) return key === null ? null : data.tops.get(key) || { count: 0, offset: 0, top: [] };
    return key === '' && data.listed ? data.listed : undefined;
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
      topSessions: shown.top.map((t) => ({ ...plainTotal(t), agent: t.agent })), topFrom: shown.topFrom,
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

  function filtersOf(state) {
    return { from: state.from, to: state.to, project: state.project, agent: state.agent, model: state.model };
  }

  // Everything the page shows for one state; `listed`: the sessions the filter keeps (a page of
  // them), null or undefined when not known (yet).
  function view(data, state, listed) {
    const filters = filtersOf(state);
    const picked = select(data, filters);
    return {
      zone: data.zone,
      filters,
      totals: totals(data, picked, listed),
      series: series(data, picked, state.by, state.measure),
      top: listed ? listed.top : [],
      topFrom: listed ? listed.offset : 0,
      calendar: calendar(data, picked, state.measure),
    };
  }

  return {
    FORMAT, GROUPS, MEASURES, PALETTE, CSV_FIELDS, decode, decodeListed, dayIn, inProject, select, totals, series,
    filterKey, filtersOf, timeRange, sessionsQuery, listedFor,
    calendar, unitFor, bucketOf, bucketsBetween, dollars, costText, costShort, formatTokens, formatCount, percent,
    toCsv, toJson, parseState, formatState, view,
  };
})();
if (typeof module === 'object' && module.exports) module.exports = usageData;
