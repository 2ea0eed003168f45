const test = require('node:test');
const assert = require('node:assert/strict');
const { load } = require('./load.js');

const searchText = load('search-text');
const linkQuery = load('link-query');

test('search text: tags dropped, entities decoded, meta fields included, lower case', () => {
  const text = searchText.entryText({ preview: 'Prev', label: 'Ckpt', type: 'message', id: 'ID1' },
    '<p>Fish &amp; <b>Chips</b> &#x1F600; &bogus;</p>');
  assert.ok(text.includes('fish &  chips'));  // each tag becomes a space
  assert.ok(text.includes('😀'));
  assert.ok(text.includes('&bogus;'));
  for (const word of ['prev', 'ckpt', 'message', 'id1']) assert.ok(text.includes(word), word);
  assert.equal(searchText.decodeEntities('&#99999999;'), '&#99999999;');
});

test('every search term must occur', () => {
  const terms = searchText.parseTerms('  Fish   CHIPS ');
  assert.deepEqual(terms, ['fish', 'chips']);
  assert.equal(searchText.matchesTerms('fish and chips', terms), true);
  assert.equal(searchText.matchesTerms('fish only', terms), false);
  assert.equal(searchText.matchesTerms('anything', []), true);
});

test('query: named parameters, a leading gist id, bad escapes ignored', () => {
  const q = linkQuery.parseQuery('?abc123&leafId=a%20b&targetId=x+y&bad=%E0%A4%A');
  assert.equal(q.gist, 'abc123');
  assert.equal(q.params.leafId, 'a b');
  assert.equal(q.params.targetId, 'x y');
  assert.equal('bad' in q.params, false);
  assert.equal(linkQuery.parseQuery('?leafId=a&abc').gist, null);
});

test('links keep the gist id first and escape ids', () => {
  assert.equal(linkQuery.buildLink('https://h/p', 'g1', 'a&b', 'c'), 'https://h/p?g1&leafId=a%26b&targetId=c');
  assert.equal(linkQuery.buildLink('file:///x.html', null, null, null), 'file:///x.html');
  const back = linkQuery.parseQuery(linkQuery.buildLink('', 'g', 'é/?', 't').slice(0));
  assert.deepEqual([back.gist, back.params.leafId, back.params.targetId], ['g', 'é/?', 't']);
});
