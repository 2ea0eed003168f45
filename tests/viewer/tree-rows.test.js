const test = require('node:test');
const assert = require('node:assert/strict');
const { load } = require('./load.js');

const entryIndex = load('entry-index');
const treeRows = load('tree-rows');
const e = (id, parentId, cat = 'user') => ({ id, parentId, cat });

function layout(entries, filter = 'default', collapsed = new Set(), isMatch = () => true) {
  const index = entryIndex.build(entries);
  const marked = treeRows.markVisible(index, filter, isMatch, entryIndex.FILTERS, entryIndex.passesFilter);
  return { index, marked, rows: treeRows.layoutRows(index, marked.visible, marked.visibleCount, collapsed) };
}

// a - b - c (main line, 2 entries below b) and b - d (side branch)
const BRANCHY = [e('a', null), e('b', 'a'), e('c', 'b'), e('c2', 'c'), e('d', 'b')];

test('the main line stays at its level; side branches are one in and listed first', () => {
  const { rows } = layout(BRANCHY);
  assert.deepEqual(Array.from(rows.rows), [0, 1, 4, 2, 3]);
  assert.deepEqual(Array.from(rows.level), [0, 0, 0, 0, 1]);
  assert.equal(rows.visibleChildren[1], 2);
  assert.deepEqual(treeRows.guides(rows, 4, 32), ['g-end']);
  assert.equal(treeRows.ariaParent(rows, 4), 1);
  assert.equal(treeRows.ariaParent(rows, 2), -1);
});

test('a collapsed branch point hides its side branches only', () => {
  const { rows } = layout(BRANCHY, 'default', new Set([1]));
  assert.deepEqual(Array.from(rows.rows), [0, 1, 2, 3]);
  assert.equal(rows.rowOf[4], -1);
});

test('hidden entries fold away: children hang under the nearest visible ancestor', () => {
  const { rows, marked } = layout([e('a', null), e('m', 'a', 'meta'), e('b', 'm')]);
  assert.equal(marked.visibleCount, 2);
  assert.deepEqual(Array.from(rows.rows), [0, 2]);
  assert.equal(rows.visibleParent[2], 0);
  assert.deepEqual(marked.counts, { default: 2, 'no-tools': 2, 'user-only': 2, labeled: 0, all: 3 });
});

test('search matches limit rows and counts', () => {
  const { rows, marked } = layout(BRANCHY, 'default', new Set(), (i) => i !== 4);
  assert.equal(marked.counts.default, 4);
  assert.deepEqual(Array.from(rows.rows), [0, 1, 2, 3]);
});

test('ARIA positions: rows of one level form a group until a shallower row closes it', () => {
  const { rows } = layout(BRANCHY);
  const pos = Array.from(rows.rowPos);
  const size = Array.from(rows.rowGroup, (g) => rows.groupSize[g]);
  assert.deepEqual(pos, [1, 2, 1, 3, 4]);
  assert.deepEqual(size, [4, 4, 1, 4, 4]);
});

test('a 100,000-deep chain lays out without recursion', () => {
  const chain = Array.from({ length: 100000 }, (_, i) => e('n' + i, i ? 'n' + (i - 1) : null));
  const { rows } = layout(chain);
  assert.equal(rows.rows.length, 100000);
  assert.equal(rows.level[99999], 0);
});
