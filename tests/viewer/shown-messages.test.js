const test = require('node:test');
const assert = require('node:assert/strict');
const { load } = require('./load.js');

const entryIndex = load('entry-index');
const shownMessages = load('shown-messages');

const ENTRIES = [
  { id: 'u1', parentId: null, cat: 'user' },
  { id: 'a1', parentId: 'u1', cat: 'assistant', calls: ['c1', 'c2'] },
  { id: 't1', parentId: 'a1', cat: 'tool', result: 'c1' },
  { id: 'm1', parentId: 't1', cat: 'meta' },
  { id: 't2', parentId: 'm1', cat: 'tool', result: 'c9' },
  { id: 'a2', parentId: 't2', cat: 'assistant' },
];

function view(filter) {
  const index = entryIndex.build(ENTRIES);
  const path = entryIndex.pathTo(index, 5);
  return { index, path, view: shownMessages.computeShown(index, path, filter, entryIndex.passesFilter) };
}

test('a result merges into its shown call; one without a call on the path stands alone', () => {
  const { view: v } = view('default');
  assert.deepEqual(v.shown, [0, 1, 4, 5]);
  assert.deepEqual([...v.merged], [2]);
  assert.equal(v.resultFor.get('c1'), 2);
  assert.equal(v.shownPos.get(4), 2);
});

test('under user-only no call is shown, so nothing merges', () => {
  const { view: v } = view('user-only');
  assert.deepEqual(v.shown, [0]);
  assert.equal(v.merged.size, 0);
});

test('anchors: itself, its call, or the nearest shown entry before it', () => {
  const { index, path, view: v } = view('default');
  assert.equal(shownMessages.anchorPos(v, index, path, 5), 3);
  assert.equal(shownMessages.anchorPos(v, index, path, 2), 1);
  assert.equal(shownMessages.anchorPos(v, index, path, 3), 1);
  assert.equal(shownMessages.anchorPos(v, index, path, -1), -1);
});

test('the window around an anchor and the fragments it needs', () => {
  assert.deepEqual(shownMessages.windowAround(50, 100, 6, 14), [44, 64]);
  assert.deepEqual(shownMessages.windowAround(-1, 100, 6, 14), [0, 14]);
  assert.deepEqual(shownMessages.windowAround(2, 5, 6, 14), [0, 5]);
  const { index, view: v } = view('default');
  assert.equal(shownMessages.lastNeeded(index, v, 0, 2), 2);  // a1's call pulls in t1
  assert.equal(shownMessages.lastNeeded(index, v, 0, 4), 5);
});
