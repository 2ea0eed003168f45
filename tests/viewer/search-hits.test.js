const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');

const searchHits = require(path.join(__dirname, '..', '..', 'src', 'sessiontree', 'templates', 'serve', 'search-hits.js'));

test('query URL: trimmed, encoded, none for an empty query', () => {
  assert.equal(searchHits.queryUrl('/api/search', '  ', 20), '');
  assert.equal(searchHits.queryUrl('/api/search', '"a b" & c#', 5), '/api/search?q=%22a%20b%22%20%26%20c%23&limit=5');
});

test('snippet parts follow the marks and ignore bad ones', () => {
  assert.deepEqual(searchHits.snippetParts('find the word here', [[9, 13]]), [
    ['find the ', false], ['word', true], [' here', false],
  ]);
  assert.deepEqual(searchHits.snippetParts('abc', [[2, 9], [-1, 1], [1, 1], ['x', 2], [0, 1], [0, 2]]), [
    ['a', true], ['bc', false],
  ]);
  assert.deepEqual(searchHits.snippetParts(null, [[0, 1]]), []);
});

test('only same-origin session links are followed', () => {
  assert.equal(searchHits.safeHref('/s/a%2Fb.jsonl?targetId=x', '/s/'), '/s/a%2Fb.jsonl?targetId=x');
  for (const bad of ['javascript:alert(1)', '//evil.example/s/', '/s//evil.example', 'https://x/s/', null]) {
    assert.equal(searchHits.safeHref(bad, '/s/'), '', String(bad));
  }
  for (const prefix of ['', '//', '//evil.example/', null]) {
    assert.equal(searchHits.safeHref('//evil.example/x', prefix), '', String(prefix));
  }
});

test('a reply to an older query is not current', () => {
  const order = searchHits.sequencer();
  const first = order.next();
  const second = order.next();
  assert.equal(order.isCurrent(first), false);
  assert.equal(order.isCurrent(second), true);
});

test('the total names every hit and session, never a page of them', () => {
  assert.equal(searchHits.totalText(46, 5), '46 messages in 5 sessions');
  assert.equal(searchHits.totalText(1, 1), '1 message in 1 session');
  assert.equal(searchHits.totalText(1200, 3), '1,200 messages in 3 sessions');
  assert.equal(searchHits.totalText(0, 0), 'No message matches.');
  assert.equal(searchHits.queryUrl('/api/search', 'x', 50, 100), '/api/search?q=x&limit=50&offset=100');
});

test('while the server still indexes, the status says what is found so far and what is left', () => {
  assert.equal(searchHits.pendingText(3, 2, 1500), '3 messages in 2 sessions so far; still indexing 1,500 files\u2026');
  assert.equal(searchHits.pendingText(0, 0, 1), 'No match so far; still indexing 1 file\u2026');
  assert.ok(searchHits.PENDING_MS > 0);
});

test('hits are grouped by session in rank order, later pages joining their group', () => {
  const g = searchHits.grouper((h) => h.s);
  assert.equal(g.add({ s: 'a', n: 1 }).fresh, true);
  assert.equal(g.add({ s: 'b', n: 2 }).fresh, true);
  assert.equal(g.add({ s: 'a', n: 3 }).fresh, false);
  assert.deepEqual(g.groups.map((x) => [x.key, x.hits.map((h) => h.n)]), [['a', [1, 3]], ['b', [2]]]);
});

test('exact words and phrases rank before stems and partial matches', () => {
  const rank = searchHits.matchRank;
  assert.equal(rank('turbopack', 'use turbopack now', [[4, 13]]), 0);
  assert.equal(rank('turbopack', 'gpt-4-turbo-preview', [[6, 11]]), 1);
  assert.equal(rank('Parsers', 'the parser runs', [[4, 10]]), 1);
  assert.equal(rank('"amber falcon"', 'an Amber  falcon', [[3, 8], [10, 16]]), 0);
  assert.equal(rank('amber falcon', 'amber and a falcon', [[0, 5], [12, 18]]), 1);
  const order = searchHits.exactFirst(['near1', 'exact', 'near2', 'exact2'], (x) => (x.startsWith('exact') ? 0 : 1));
  assert.deepEqual(order, ['exact', 'exact2', 'near1', 'near2']);
});

test('the newest first is asked of the server; repeats are known by their words', () => {
  assert.equal(searchHits.queryUrl('/api/search', 'board', 50, 0, 'newest'), '/api/search?q=board&limit=50&order=newest');
  assert.equal(searchHits.queryUrl('/api/search', 'board', 50, 100, 'best'), '/api/search?q=board&limit=50&offset=100');
  assert.equal(searchHits.repeatKey('…Fix the  Board\n squares…'), searchHits.repeatKey('fix the board squares'));
  assert.notEqual(searchHits.repeatKey('fix the board'), searchHits.repeatKey('fix the boards'));
  assert.equal(searchHits.repeatKey(undefined), '');
});

test('newest first: by ISO time, equal times in the engine order, no time last', () => {
  const hits = [
    { id: 'a', time: '2026-03-01T10:00:00.000Z' }, { id: 'b', time: '' }, { id: 'c', time: '2026-03-02T09:00:00.000Z' },
    { id: 'd', time: '2026-03-01T10:00:00.000Z' }, { id: 'e' }, { id: 'f', time: '2025-12-31T23:59:59.000Z' },
  ];
  assert.deepEqual(searchHits.newestFirst(hits, (h) => h.time).map((h) => h.id), ['c', 'a', 'd', 'f', 'b', 'e']);
  assert.deepEqual(searchHits.newestFirst([], (h) => h.time), []);
});
