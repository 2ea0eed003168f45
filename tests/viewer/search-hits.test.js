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
