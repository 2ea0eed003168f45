const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const D = require(path.join(__dirname, '..', '..', 'src', 'sessiontree', 'templates', 'usage', 'usage-data.js'));

// Four groups (project, agent): two pi ones in /w/app (one in /w/app/sub), a Claude Code one in
// /w/lib, a pi one in /w/application. The sessions come apart (`tops`, a built site's shape).
const noon = (day) => Date.parse(day + 'T12:00:00Z');

function sample(zone = 'UTC') {
  return D.decode(sampleRaw(), zone);
}

function sampleRaw() {
  return {
    format: 3,
    times: [noon('2026-03-01'), noon('2026-03-02'), noon('2026-03-10')],
    models: ['a/m1', 'b/m2', 'z/free'],
    projects: ['/w/app', '/w/app/sub', '/w/lib', '/w/application'],
    agents: ['pi', 'claude'],
    agentLabels: ['pi', 'Claude Code'],
    zeroModels: [2],
    groups: [[0, 0], [1, 0], [2, 1], [3, 0]],
    pageSize: 20,
    tops: {
      '': { count: 4, offset: 0, top: [
        ['Three', '/s/three.jsonl', 'Claude Code', 's/three.html', 5, 41, 5, 0, 10, 2.01, 4, [], []],
        ['One', '/s/one.jsonl', 'pi', 's/one.html', 3, 110, 15, 300, 50, 1.5, 0, ['b/m2'], []],
      ] },
      'agent=pi': { count: 3, offset: 0, top: [
        ['One', '/s/one.jsonl', 'pi', 's/one.html', 3, 110, 15, 300, 50, 1.5, 0, ['b/m2'], []],
        ['Two', '/s/two.jsonl', 'pi', null, 3, 20, 20, 100, 0, 0.25, 3, [], []],
        ['Four', '/s/four.jsonl', 'pi', 's/four.html', 5, 1000, 10, 0, 0, 0, 0, [], ['z/free']],
      ] },
    },
    rows: [
      0, 0, 0, 2, 100, 10, 300, 50, 1.5, 0, 0,
      0, 1, 1, 1, 10, 5, 0, 0, null, 0, 1,
      1, 1, 0, 3, 20, 20, 100, 0, 0.25, 3, 0,
      2, 2, 1, 4, 40, 4, 0, 10, 2.0, 4, 0,
      2, -1, 0, 1, 1, 1, 0, 0, 0.01, 0, 0,
      3, 2, 2, 5, 1000, 10, 0, 0, 0, 0, 0,
    ],
  };
}

const ALL = { from: '', to: '', project: '', agent: '', model: '', by: 'model', measure: 'cost' };

test('data of another shape is refused', () => {
  assert.equal(D.decode({ format: 1, days: [], rows: [] }), null); // UTC days: the old shape
  assert.equal(D.decode({ format: 2, rows: [] }), null); // rows per session: the old shape
  assert.equal(D.decode({ format: 3, rows: [1, 2] }), null);
  assert.equal(D.decode(null), null);
});

test('totals: sums, cost recorded / estimated / unpriced / zero, hit ratio, sessions, days', () => {
  const data = sample();
  const t = D.totals(data, D.select(data, {}), D.listedFor(data, {}));
  assert.equal(t.messages, 16);
  assert.equal(t.input, 1171);
  assert.equal(t.cacheRead, 400);
  assert.equal(t.cacheWrite, 60);
  assert.ok(Math.abs(t.cost - 3.76) < 1e-9);
  assert.equal(t.sessions, 4);
  assert.equal(t.activeDays, 3);
  assert.ok(Math.abs(t.hitRatio - 400 / (1171 + 400 + 60)) < 1e-12);
  assert.deepEqual(t.unpriced, ['b/m2']);
  assert.deepEqual(t.zero, ['z/free']);
  assert.equal(D.costText(t), '$3.76 estimated (no price for b/m2) (recorded as $0: z/free)');
  assert.equal(D.costShort(t), '$3.76 estimated + 2 models without a price');
  const one = D.totals(data, D.select(data, { model: 'b/m2', agent: 'pi' }));
  assert.equal(D.costShort(one), 'no price for 1 model');
});

test("the days are the reader's: quarter hours near midnight UTC fall on the zone's own days", () => {
  // 18:15 and 18:45 UTC: either side of midnight in India (+5:30), both after it in Nepal (+5:45);
  // 03:45 UTC on the 2nd is still the 1st in New York (-5).
  const times = ['2026-03-01T18:15:00Z', '2026-03-01T18:45:00Z', '2026-03-01T23:45:00Z', '2026-03-02T03:45:00Z'].map(Date.parse);
  const raw = {
    format: 3, times, models: ['m'], projects: ['/w'], agents: ['pi'], agentLabels: ['pi'],
    groups: [[0, 0]],
    rows: [0, 0, 0, 1, 1, 0, 0, 0, 0.1, 0, 0, 0, 1, 0, 2, 2, 0, 0, 0, 0.2, 0, 0, 0, 2, 0, 4, 4, 0, 0, 0, 0.4, 0, 0,
      0, 3, 0, 8, 8, 0, 0, 0, 0.8, 0, 0, 0, -1, 0, 16, 16, 0, 0, 0, 1.6, 0, 0],
  };
  const perDay = (zone) => {
    const data = D.decode(raw, zone);
    assert.equal(data.zone, zone);
    return Object.fromEntries(D.calendar(data, D.select(data, {}), 'tokens').days.filter((d) => d.total).map((d) => [d.day, d.messages]));
  };
  assert.deepEqual(perDay('UTC'), { '2026-03-01': 1 + 2 + 4, '2026-03-02': 8 });
  assert.deepEqual(perDay('Asia/Kolkata'), { '2026-03-01': 1, '2026-03-02': 2 + 4 + 8 });
  assert.deepEqual(perDay('Asia/Kathmandu'), { '2026-03-02': 1 + 2 + 4 + 8 });
  assert.deepEqual(perDay('America/New_York'), { '2026-03-01': 1 + 2 + 4 + 8 }); // 03:45 UTC: 22:45 the day before
  const india = D.decode(raw, 'Asia/Kolkata');
  const range = D.totals(india, D.select(india, { from: '2026-03-02', to: '2026-03-02' }));
  assert.equal(range.messages, 14); // a range counts the reader's whole days, the undated row left out
  assert.equal(D.totals(india, D.select(india, {})).messages, 31);
});

test('a project is its folder and the folders under it, never a name that only starts alike', () => {
  const data = sample();
  const keys = (f) => [...new Set(D.select(data, f).map((i) => data.rows[i]))].sort();
  assert.deepEqual(keys({ project: '/w/app' }), [0, 1]);
  assert.deepEqual(keys({ project: '/w/app/' }), [0, 1]);
  assert.deepEqual(keys({ project: '/w/app/sub' }), [1]);
  assert.deepEqual(keys({ agent: 'claude' }), [2]);
  assert.deepEqual(keys({ model: 'b/m2' }), [0, 2]);
  assert.deepEqual(keys({ model: 'no/such' }), []);
});

test('a date range counts whole days and leaves out undated usage', () => {
  const data = sample();
  const t = D.totals(data, D.select(data, { from: '2026-03-02', to: '2026-03-02' }));
  assert.equal(t.messages, 4);
  assert.equal(t.activeDays, 1);
  const open = D.totals(data, D.select(data, { from: '2026-03-02' }));
  assert.equal(open.messages, 13);
  const all = D.totals(data, D.select(data, {}));
  assert.equal(all.messages, 16); // the undated row counts without a range
});

test('series: buckets every day, stacks groups, ranks like stats, table rows have messages', () => {
  const data = sample();
  const s = D.series(data, D.select(data, {}), 'agent', 'cost');
  assert.equal(s.unit, 'day');
  assert.equal(s.buckets.length, 10);
  assert.deepEqual(s.groups.map((g) => g.key), ['Claude Code', 'pi']);
  assert.deepEqual(s.groups[1].values.slice(0, 2), [1.5, 0.25]);
  assert.equal(s.table.length, 4);
  assert.deepEqual(s.table.map((r) => [r.period, r.group]), [
    ['2026-03-01', 'pi'], ['2026-03-02', 'pi'], ['2026-03-10', 'Claude Code'], ['2026-03-10', 'pi'],
  ]);
  assert.equal(s.top, 2.0);
  const tokens = D.series(data, D.select(data, {}), 'project', 'tokens');
  assert.equal(tokens.top, 54 + 1010);
});

test('more groups than the palette fold into one "other"', () => {
  const models = Array.from({ length: 12 }, (_, k) => 'p/m' + k);
  const rows = [];
  models.forEach((_, k) => rows.push(0, 0, k, 1, 10 * (k + 1), 0, 0, 0, k + 1, 0, 0));
  const data = D.decode({ format: 3, times: [noon('2026-01-01')], models, projects: ['/w'], agents: ['pi'], agentLabels: ['pi'], groups: [[0, 0]], rows });
  const s = D.series(data, D.select(data, {}), 'model', 'cost');
  assert.equal(s.groups.length, 9);
  assert.equal(s.groups[0].key, 'p/m11');
  assert.equal(s.groups[8].key, 'other (4 models)');
  assert.equal(s.groups[8].values[0], 1 + 2 + 3 + 4);
});

test('buckets: days, weeks from Monday, months', () => {
  assert.equal(D.unitFor('2026-01-01', '2026-04-01'), 'day');
  assert.equal(D.unitFor('2026-01-01', '2026-06-01'), 'week');
  assert.equal(D.unitFor('2023-01-01', '2026-06-01'), 'month');
  assert.equal(D.bucketOf('2026-03-04', 'week'), '2026-03-02');
  assert.equal(D.bucketOf('2026-03-02', 'week'), '2026-03-02');
  assert.equal(D.bucketOf('2026-03-01', 'week'), '2026-02-23');
  assert.deepEqual(D.bucketsBetween('2025-11-20', '2026-02-03', 'month'), ['2025-11', '2025-12', '2026-01', '2026-02']);
  assert.deepEqual(D.bucketsBetween('2026-03-04', '2026-03-17', 'week'), ['2026-03-02', '2026-03-09', '2026-03-16']);
});

test("the sessions a filter keeps: a site's tops for one value, none for two; serve's API query", () => {
  const data = sample();
  const top = D.listedFor(data, {});
  assert.deepEqual(top.top.map((t) => [t.key, t.label, t.href, t.agent]), [['/s/three.jsonl', 'Three', 's/three.html', 'Claude Code'], ['/s/one.jsonl', 'One', 's/one.html', 'pi']]);
  assert.equal(top.top[1].tokens, 110 + 15 + 300 + 50);
  assert.equal(D.costShort(top.top[1]), '$1.50 + 1 model without a price');
  assert.equal(D.listedFor(data, { agent: 'pi' }).count, 3);
  assert.deepEqual(D.listedFor(data, { model: 'a/m1' }), { count: 0, offset: 0, top: [] }); // a key the site has no list of
  assert.equal(D.listedFor(data, { agent: 'pi', model: 'a/m1' }), null);
  assert.equal(D.listedFor(data, { from: '2026-03-01' }), null);
  assert.equal(D.filterKey({ project: '/w/app' }), 'project=/w/app');
  // serve's page: the first page of no filter carried, the others asked for with the range in ms
  const served = D.decode({ ...sampleRaw(), tops: undefined, api: '/api/usage-sessions', pageSize: 50, listed: { count: 4, offset: 0, top: [] } }, 'UTC');
  assert.equal(D.listedFor(served, {}).count, 4);
  assert.equal(D.listedFor(served, { agent: 'pi' }), undefined);
  const query = new URLSearchParams(D.sessionsQuery(served, { from: '2026-03-02', to: '2026-03-10', project: '/w/a b', agent: '', model: '' }, 50));
  assert.equal(Number(query.get('since')), noon('2026-03-02'));
  assert.equal(Number(query.get('until')), noon('2026-03-10') + 900000);
  assert.equal(query.get('project'), '/w/a b');
  assert.equal(query.get('offset'), '50');
  assert.equal(query.get('agent'), null);
  assert.equal(D.sessionsQuery(served, { from: '2026-04-01' }, 0), null); // no known quarter hour in it
});

test('calendar: weeks from Monday, levels by share of the busiest day', () => {
  const data = sample();
  const cal = D.calendar(data, D.select(data, {}), 'cost');
  assert.equal(cal.days[0].day, '2026-02-23');
  assert.equal(cal.days[cal.days.length - 1].day, '2026-03-10');
  const at = (day) => cal.days.find((d) => d.day === day);
  assert.equal(at('2026-03-01').level, 3);
  assert.equal(at('2026-03-10').level, 4);
  assert.equal(at('2026-03-05').level, 0);
  assert.equal(at('2026-03-02').weekday, 0);
});

test('CSV: one line per table row, quoted where needed, formulas defused', () => {
  const data = sample();
  data.projects[0] = '=cmd|"x",y';
  const shown = D.view(data, { ...ALL, by: 'project' });
  const lines = D.toCsv(shown).trim().split('\n');
  assert.equal(lines[0], D.CSV_FIELDS.join(','));
  assert.equal(lines.length, 1 + shown.series.table.length);
  assert.equal(lines[1], `2026-03-01,"'=cmd|""x"",y",2,100,10,300,50,460,1.5,false,,UTC`);
  assert.equal(lines[2], `2026-03-02,"'=cmd|""x"",y",1,10,5,0,0,15,,false,b/m2,UTC`); // no cost recorded: empty
  // Each line names the zone its period is a day (or week, month) of.
  assert.ok(D.toCsv(D.view(sample('Asia/Kolkata'), ALL)).trim().split('\n').slice(1).every((l) => l.endsWith(',Asia/Kolkata')));
});

test('JSON holds the filters, totals, the table, top sessions and days', () => {
  const data = sample();
  const pi = { ...ALL, agent: 'pi' };
  const out = JSON.parse(D.toJson(D.view(data, pi, D.listedFor(data, pi))));
  assert.equal(out.filters.agent, 'pi');
  assert.equal(out.total.sessions, 3);
  assert.equal(out.total.messages, 11);
  assert.equal(out.topSessions.length, 3);
  assert.equal(out.over.rows.length, 4); // by model: a row per day and model
  assert.deepEqual(out.days.map((d) => d.day), ['2026-03-01', '2026-03-02', '2026-03-10']);
  assert.equal(out.zone, data.zone); // the zone its days are in, as stats --json says its own
  assert.equal(JSON.parse(D.toJson(D.view(sample('Asia/Kolkata'), ALL))).zone, 'Asia/Kolkata');
});

test('state in the hash: round trip, bad values dropped', () => {
  const state = { ...ALL, from: '2026-03-01', project: '/w/a b&c', by: 'agent' };
  const hash = D.formatState(state);
  assert.equal(hash, 'from=2026-03-01&project=%2Fw%2Fa%20b%26c&by=agent');
  assert.deepEqual(D.parseState('#' + hash), state);
  assert.deepEqual(D.parseState('#from=yesterday&by=evil&measure=tokens&x=1&%E0%A4%A=1'), { ...ALL, measure: 'tokens' });
});

test('money and tokens are shown as stats shows them', () => {
  assert.equal(D.dollars(null), '-');
  assert.equal(D.dollars(0), '$0.00');
  assert.equal(D.dollars(0.004), '$0.0040');
  assert.equal(D.dollars(1234.5), '$1,234.50');
  assert.equal(D.formatTokens(950), '950');
  assert.equal(D.formatTokens(12345), '12.3k');
  assert.equal(D.formatTokens(4_000_000), '4M');
  assert.equal(D.percent(null), '-');
  assert.equal(D.percent(0.9384), '93.8%');
});

test('a filter over 10,000 rows keeps only its project (the bench times it)', () => {
  const rows = [];
  for (let k = 0; k < 10000; k += 1) rows.push(k % 1000, k % 300, k % 7, 3, 1000, 100, 5000, 200, k % 5 ? 0.01 * k : null, 1, k % 5 ? 0 : 1);
  const times = Array.from({ length: 300 }, (_, k) => Date.UTC(2026, 0, 1) + k * 86400000);
  const data = D.decode({
    format: 3, times, models: Array.from({ length: 7 }, (_, k) => 'p/m' + k),
    projects: Array.from({ length: 20 }, (_, k) => '/w/p' + k), agents: ['pi', 'claude'], agentLabels: ['pi', 'Claude Code'],
    groups: Array.from({ length: 1000 }, (_, k) => [k % 20, k % 2]), rows,
  });
  const shown = D.view(data, { ...ALL, project: '/w/p3', by: 'project' });
  assert.equal(shown.totals.messages, 3 * 500);
  assert.deepEqual(shown.series.groups.map((g) => g.key), ['/w/p3']);
});
