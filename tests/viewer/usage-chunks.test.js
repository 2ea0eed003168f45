const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const dir = path.join(__dirname, '..', '..', 'src', 'sessiontree', 'templates', 'usage');
const D = require(path.join(dir, 'usage-data.js'));
const C = require(path.join(dir, 'usage-chunks.js'));

// A built site's page (no per-session rows) naming its files of sessions by month, and two of
// those files: a session (/s/a) spanning March and April, two that tie on cost and tokens and
// differ past U+FFFF in their paths, an undated row.
const at = (day, hour) => Date.parse(day + 'T' + String(hour).padStart(2, '0') + ':00:00Z');
const TIMES = [at('2026-03-30', 12), at('2026-04-02', 12)];

function page() {
  return D.decode({
    format: 3, times: TIMES, models: ['a/m1', 'z/free'], projects: ['/w/app', '/w/lib'], agents: ['pi'],
    agentLabels: ['pi'], zeroModels: [1], groups: [[0, 0], [1, 0]], pageSize: 2, tops: {},
    chunks: ['2026-03', '2026-04', 'undated'],
    rows: [0, 0, 0, 1, 1, 1, 0, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
  }, 'UTC');
}

const S = (p, cwd, title) => [0, p.slice(3), title, p === '/s/u' ? 'shown u' : null, 'pi', 'pi', 's' + p + '.html', cwd];
const MARCH = {
  format: 2, folders: ['/s/'], models: ['a/m1'], sessions: [S('/s/a', '/w/app', 'A')],
  rows: [0, TIMES[0], 0, 1, 100, 10, 0, 0, 0.5, 0, 0],
};
const APRIL = {
  format: 2, folders: ['/s/'], models: ['a/m1', 'z/free'],
  sessions: [S('/s/a', '/w/app', 'A'), S('/s/\u{1F600}', '/w/lib', 'Astral'), S('/s/\uFF5E', '/w/lib', 'Wide')],
  rows: [
    0, TIMES[1], 0, 2, 200, 20, 0, 0, 0.25, 1, 0,
    1, TIMES[1], 1, 1, 50, 5, 0, 0, 0, 0, 0,
    2, TIMES[1], 1, 1, 50, 5, 0, 0, 0, 0, 0,
  ],
};
const UNDATED = { format: 2, folders: ['/s/'], models: ['a/m1'], sessions: [S('/s/u', '/w/app', 'U')], rows: [0, 0, 0, 1, 1, 1, 0, 0, null, 0, 1] };

test('the files a filter needs: the months its range covers, every one for two filters and no range', () => {
  const data = page();
  assert.equal(C.chunksFor(data, {}), null); // the page's own tops
  assert.equal(C.chunksFor(data, { project: '/w/app' }), null);
  assert.deepEqual(C.chunksFor(data, { from: '2026-03-01', to: '2026-03-31' }), ['2026-03']);
  assert.deepEqual(C.chunksFor(data, { from: '2026-03-30', to: '2026-04-30', agent: 'pi' }), ['2026-03', '2026-04']);
  assert.deepEqual(C.chunksFor(data, { project: '/w/app', model: 'a/m1' }), ['2026-03', '2026-04', 'undated']);
  assert.deepEqual(C.chunksFor(data, { from: '2026-05-01' }), []); // no usage in range
  assert.equal(C.chunkName('2026-04'), 'usage-sessions-2026-04.json');
  assert.equal(C.decodeChunk({ format: 1, folders: [], models: [], sessions: [], rows: [] }), null);
  assert.equal(C.decodeChunk({ format: 2, folders: ['/s/'], models: [], sessions: [], rows: [1] }), null);
});

test('ranked as serve ranks: summed over months, most cost, then tokens, then path by code point', () => {
  const data = page();
  const all = [MARCH, APRIL, UNDATED];
  assert.equal(C.rank(data, all, { project: '/w/ap', agent: 'pi' }, 10).count, 0); // only starts alike
  assert.equal(C.rank(data, all, { project: '/w', agent: 'pi' }, 10).count, 4); // the folders under it
  const any = C.rank(data, all, { agent: 'pi', from: '2026-03-01', to: '2026-04-30' }, 10);
  assert.equal(any.count, 3);
  const [first, second, third] = any.top;
  assert.equal(first.key, '/s/a');
  assert.equal(first.messages, 3);
  assert.equal(first.input, 300);
  assert.equal(first.cost, 0.75);
  assert.equal(first.estimated, 1);
  assert.equal(first.href, 's/s/a.html');
  // Equal cost ($0) and tokens: U+FF5E before U+1F600, as Python orders them (UTF-16 would not).
  assert.deepEqual([second.key, third.key], ['/s/\uFF5E', '/s/\u{1F600}']);
  assert.deepEqual(second.zero, ['z/free']);
  assert.equal(C.rank(data, all, { agent: 'pi', from: '2026-03-01', to: '2026-04-30' }, 2).top.length, 2);
  // A dated filter leaves undated rows out; no range keeps them, unpriced named.
  const undated = C.rank(data, all, { project: '/w/app', model: 'a/m1' }, 10);
  assert.deepEqual(undated.top.map((t) => t.key), ['/s/a', 'shown u']); // its shown path when it differs
  assert.deepEqual(undated.top[1].unpriced, ['a/m1']);
  assert.equal(undated.top[1].cost, null);
  const march = C.rank(data, [MARCH], { from: '2026-03-01', to: '2026-03-31', model: 'a/m1' }, 10);
  assert.deepEqual([march.count, march.top[0].messages, march.top[0].cost], [1, 1, 0.5]);
});
