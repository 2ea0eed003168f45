const test = require('node:test');
const assert = require('node:assert/strict');
const { load } = require('./load.js');

const entryIndex = load('entry-index');
const e = (id, parentId, cat = 'user', extra = {}) => ({ id, parentId, cat, ...extra });

test('parents, children, roots and subtree sizes', () => {
  const index = entryIndex.build([e('a', null), e('b', 'a'), e('c', 'b'), e('d', 'a'), e('x', 'nope')]);
  assert.deepEqual(index.parent, [-1, 0, 1, 0, -1]);
  assert.deepEqual(index.roots, [0, 4]);
  assert.deepEqual(index.children[0], [1, 3]);
  assert.deepEqual(index.subtree, [4, 2, 1, 1, 1]);
  assert.deepEqual(entryIndex.pathTo(index, 2), [0, 1, 2]);
});

test('a parent cycle is cut where it closes and a self-parent is a root', () => {
  const index = entryIndex.build([e('a', 'c'), e('b', 'a'), e('c', 'b'), e('s', 's')]);
  assert.equal(index.parent.filter((p) => p === -1).length, 2);
  assert.equal(index.parent[3], -1);
  for (let i = 0; i < 3; i++) assert.ok(entryIndex.pathTo(index, i).length <= 3);
  assert.equal(index.roots.length, 2);
});

test('non-object entries become unknown placeholders; a duplicated id: the last wins', () => {
  const index = entryIndex.build([null, e('a', null), e('a', null), 'text']);
  assert.deepEqual(index.entries[0], { id: '#0', cat: 'unknown' });
  assert.equal(index.entries[3].id, '#3');
  assert.equal(index.ids.get('a'), 2);
});

test('addEntry grows the index as build would have made it', () => {
  const all = [e('a', null), e('b', 'a'), e('c', 'b'), e('d', 'a')];
  const grown = entryIndex.build(all.slice(0, 2));
  for (const meta of all.slice(2)) entryIndex.addEntry(grown, meta);
  const built = entryIndex.build(all);
  for (const key of ['count', 'parent', 'roots', 'subtree']) assert.deepEqual(grown[key], built[key], key);
  assert.deepEqual(grown.children.filter(Boolean), built.children.filter(Boolean));
});

test('filters by category and label', () => {
  const pass = (meta) => entryIndex.FILTERS.map(([f]) => entryIndex.passesFilter(meta, f));
  assert.deepEqual(pass({ cat: 'user' }), [true, true, true, false, true]);
  assert.deepEqual(pass({ cat: 'tool' }), [true, false, false, false, true]);
  assert.deepEqual(pass({ cat: 'meta', label: 'x' }), [false, false, false, true, true]);
});

test('archived branches show only under the all filter', () => {
  const pass = (meta) => entryIndex.FILTERS.map(([f]) => entryIndex.passesFilter(meta, f));
  assert.deepEqual(pass({ cat: 'user', archived: true, label: 'x' }), [false, false, false, false, true]);
  const index = entryIndex.build([e('a', null), e('b', 'a'), e('c', 'a', 'user', { archived: true })]);
  assert.equal(entryIndex.newestLeaf(index, 0, 'default'), 0);
  assert.equal(entryIndex.newestLeaf(index, 0, 'all'), 2);
});

test('newestLeaf follows last children and backs up past hidden entries', () => {
  const index = entryIndex.build([e('a', null), e('b', 'a'), e('c', 'b'), e('m', 'c', 'meta')]);
  assert.equal(entryIndex.newestLeaf(index, 0, 'default'), 2);
  assert.equal(entryIndex.newestLeaf(index, 0, 'all'), 3);
});
