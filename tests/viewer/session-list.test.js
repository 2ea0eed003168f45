const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const sessionList = require(path.join(__dirname, '..', '..', 'src', 'sessiontree', 'templates', 'browse', 'session-list.js'));

const day = (d) => Date.UTC(2026, 10, d, 12);
const rows = [
  { k: 'a', p: '/w/x', a: 'pi', m: ['gpt-5'], n: 4, u: day(3) },
  { k: 'b', p: '/w/y', a: 'claude', m: ['opus'], n: 9, u: day(5) },
  { k: 'c', p: '/w/x', a: 'claude', m: ['opus', 'gpt-5'], n: 2, u: day(4) },
];

test('the project scope, newest activity first, and every filter', () => {
  const keys = (f) => sessionList.visible(rows, f).map((s) => s.k);
  assert.deepEqual(keys({ scope: 'project', project: '/w/x' }), ['c', 'a']);
  assert.deepEqual(keys({ scope: 'all' }), ['b', 'c', 'a']);
  assert.deepEqual(keys({ scope: 'all', agent: 'claude' }), ['b', 'c']);
  assert.deepEqual(keys({ scope: 'all', model: 'gpt-5' }), ['c', 'a']);
  assert.deepEqual(keys({ scope: 'all', from: '2026-11-04', to: '2026-11-04' }), ['c']);
  assert.deepEqual(keys({ scope: 'all', from: 'junk' }), ['b', 'c', 'a']);
  assert.deepEqual(sessionList.choices(rows, (s) => s.m), ['gpt-5', 'opus']);
});

test('the from and to days are the reader\'s', () => {
  // 20:00 UTC on the 4th is 05:00 on the 5th in Tokyo and 12:00 on the 4th in Los Angeles.
  const late = [{ k: 'x', p: '/w', a: 'pi', m: [], n: 1, u: Date.parse('2026-11-04T20:00:00Z') }];
  const keys = (f) => sessionList.visible(late, f).map((s) => s.k);
  const zone = process.env.TZ;
  try {
    process.env.TZ = 'Asia/Tokyo';
    assert.deepEqual(keys({ scope: 'all', from: '2026-11-05', to: '2026-11-05' }), ['x']);
    assert.deepEqual(keys({ scope: 'all', to: '2026-11-04' }), []);
    process.env.TZ = 'America/Los_Angeles';
    assert.deepEqual(keys({ scope: 'all', from: '2026-11-05' }), []);
    assert.deepEqual(keys({ scope: 'all', from: '2026-11-04', to: '2026-11-04' }), ['x']);
    // The 1st of November is 25 hours long there (clocks go back): 23:30 that night is still in it.
    const fall = [{ k: 'y', p: '/w', a: 'pi', m: [], n: 1, u: Date.parse('2026-11-02T07:30:00Z') }];
    assert.deepEqual(sessionList.visible(fall, { scope: 'all', to: '2026-11-01' }).map((s) => s.k), ['y']);
  } finally {
    if (zone === undefined) delete process.env.TZ; else process.env.TZ = zone;
  }
});

test('unseen messages, neighbours, and where the unseen part of a page starts', () => {
  assert.equal(sessionList.unseen(rows[1], { n: 7 }), 2);
  assert.equal(sessionList.unseen(rows[1], null), 0);
  assert.equal(sessionList.unseen({ n: null }, { n: 1 }), 0);
  const list = sessionList.visible(rows, { scope: 'all' });
  assert.deepEqual(sessionList.neighbours(list, 'c'), { prev: list[0], next: list[2] });
  assert.deepEqual(sessionList.neighbours(list, 'b').prev, null);
  const entries = [{ ts: '2026-11-01T00:00:00Z' }, { ts: '2026-11-02T00:00:00Z' }, { ts: '2026-11-03T00:00:00Z' }];
  assert.equal(sessionList.firstUnseen(entries, { e: 2 }), 2);
  assert.equal(sessionList.firstUnseen(entries, { e: 3 }), -1);
  assert.equal(sessionList.firstUnseen(entries, { t: Date.parse('2026-11-01T12:00:00Z') }), 1);
  assert.equal(sessionList.firstUnseen(entries, null), -1);
  assert.equal(sessionList.ago(day(5), day(5) + 5 * 60000), '5 min');
  // An old date is the reader's day, not the UTC one.
  const late = Date.parse('2026-01-01T23:30:00Z');
  const zone = process.env.TZ;
  process.env.TZ = 'Asia/Tokyo';
  try {
    assert.equal(sessionList.ago(late, late + 90 * 86400000), '2026-01-02');
  } finally {
    if (zone === undefined) delete process.env.TZ; else process.env.TZ = zone;
  }
});

test('a filter as a server window query: this project by the current key, the reader\'s days', () => {
  const q = (f) => sessionList.windowQuery(f);
  assert.deepEqual(q({ scope: 'project', of: 'demo/a.jsonl', project: '/w/x' }), [['of', 'demo/a.jsonl']]);
  assert.deepEqual(q({ scope: 'all', project: '/w/x', agent: 'pi', model: 'p/m' }), [['project', '/w/x'], ['agent', 'pi'], ['model', 'p/m']]);
  assert.deepEqual(q({ scope: 'all', from: 'junk', mark: 1234.9 }), [['mark', '1234']]);
  const [[, since], [, until]] = q({ scope: 'all', from: '2026-11-04', to: '2026-11-04' });
  assert.equal(Number(until) - Number(since), sessionList.dayStart('2026-11-05') - sessionList.dayStart('2026-11-04'));
  assert.equal(Number(since), new Date(2026, 10, 4).getTime());
  assert.deepEqual(q({ scope: 'all', from: '1960-01-01' })[0], ['since', '0']);
});

test('the last-seen baselines stay bounded, the last seen kept', () => {
  const seen = {};
  for (let n = 0; n < 50; n++) seen['s' + n] = { n: 1, t: n };
  const kept = sessionList.bounded(seen, 10);
  assert.deepEqual(Object.keys(kept).sort(), Array.from({ length: 10 }, (_, i) => 's' + (40 + i)).sort());
  assert.equal(sessionList.bounded(kept, 10), kept);
});
