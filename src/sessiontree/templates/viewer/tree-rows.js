/* Tree row layout (pure data, no DOM): the tree flattened into rows, one per visible entry, with
 * levels, guide lines and ARIA positions. Hidden entries fold away (each visible entry hangs under
 * its nearest visible ancestor); single-child chains stay flat; at a branch point the child with
 * the largest subtree (the main line) continues at the same level and the others are side branches
 * one level in, listed first, so many retries stay flat instead of drifting right. */
const treeRows = (() => {
  // Which entries are visible under `filter` (and `isMatch`, the search), and per-filter counts.
  function markVisible(index, filter, isMatch, filters, passesFilter) {
    const n = index.count;
    const visible = new Uint8Array(n);
    const counts = {};
    for (const [f] of filters) counts[f] = 0;
    let visibleCount = 0;
    for (let i = 0; i < n; i++) {
      if (!isMatch(i)) continue;
      const meta = index.entries[i];
      for (const [f] of filters) if (passesFilter(meta, f)) counts[f]++;
      if (passesFilter(meta, filter)) { visible[i] = 1; visibleCount++; }
    }
    return { visible, visibleCount, counts };
  }

  // Lay out the rows of the visible entries; `collapsed` holds branch points whose side branches fold.
  function layoutRows(index, visible, visibleCount, collapsed) {
    const n = index.count;
    const parent = index.parent;
    // visibleParent[i]: the nearest visible ancestor of i (-1: none), memoised along each chain.
    const visibleParent = new Int32Array(n).fill(-2);
    const chain = [];
    for (let i = 0; i < n; i++) {
      if (visibleParent[i] !== -2) continue;
      chain.length = 0;
      let j = parent[i];
      let found = -1;
      for (;;) {
        if (j < 0) { found = -1; break; }
        if (visible[j]) { found = j; break; }
        if (visibleParent[j] !== -2) { found = visibleParent[j]; break; }
        chain.push(j);
        j = parent[j];
      }
      visibleParent[i] = found;
      for (const k of chain) visibleParent[k] = found;
    }
    // Visible children of each entry (slot n: the visible roots), as slices of one array.
    const visibleChildren = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) if (visible[i]) visibleChildren[visibleParent[i] < 0 ? n : visibleParent[i]]++;
    const start = new Int32Array(n + 2);
    for (let i = 0; i <= n; i++) start[i + 1] = start[i] + visibleChildren[i];
    const fill = start.slice(0, n + 1);
    const list = new Int32Array(visibleCount);
    for (let i = 0; i < n; i++) if (visible[i]) list[fill[visibleParent[i] < 0 ? n : visibleParent[i]]++] = i;

    const level = new Int32Array(n);
    const branchStart = new Int32Array(n).fill(-1);  // the first row of the side branch x is on
    const lastSide = new Uint8Array(n);              // a side branch that is its parent's last
    const rowOf = new Int32Array(n).fill(-1);
    const rows = [];
    const stack = [];
    for (let k = start[n + 1] - 1; k >= start[n]; k--) stack.push(list[k]);
    while (stack.length) {
      const x = stack.pop();
      rowOf[x] = rows.length;
      rows.push(x);
      if (!visibleChildren[x]) continue;
      let main = list[start[x]];
      for (let k = start[x] + 1; k < start[x + 1]; k++) if (index.subtree[list[k]] >= index.subtree[main]) main = list[k];
      level[main] = level[x];
      branchStart[main] = branchStart[x];
      stack.push(main);
      if (collapsed.has(x)) continue;
      let last = true;
      for (let k = start[x + 1] - 1; k >= start[x]; k--) {
        const y = list[k];
        if (y === main) continue;
        level[y] = level[x] + 1;
        branchStart[y] = y;
        lastSide[y] = last ? 1 : 0;
        last = false;
        stack.push(y);
      }
    }
    const layout = { rows, rowOf, level, branchStart, visibleParent, lastSide, visibleChildren };
    return Object.assign(layout, groupRows(rows, level));
  }

  // Only visible rows exist in the DOM, so each row states its place among its ARIA siblings:
  // consecutive rows of one level form a group until a shallower row closes it.
  function groupRows(rows, level) {
    const rowPos = new Int32Array(rows.length);
    const rowGroup = new Int32Array(rows.length);
    const groupSize = [];
    const open = [];
    let prev = -1;
    for (let r = 0; r < rows.length; r++) {
      const L = level[rows[r]];
      for (let l = Math.min(L, prev) + 1; l <= Math.max(L, prev); l++) open[l] = -1;
      if (!(open[L] >= 0)) { open[L] = groupSize.length; groupSize.push(0); }
      rowGroup[r] = open[L];
      rowPos[r] = ++groupSize[open[L]];
      prev = L;
    }
    return { rowPos, rowGroup, groupSize };
  }

  // The guide-column classes of entry x's row, outermost first (at most maxGuides).
  function guides(layout, x, maxGuides) {
    const { level, branchStart, lastSide, visibleParent } = layout;
    const L = Math.min(level[x], maxGuides);
    const out = new Array(L);
    let b = branchStart[x];
    for (let l = level[x]; l >= 1 && b >= 0; l--) {
      const cls = l === level[x] && b === x ? (lastSide[b] ? 'g-end' : 'g-tee') : (lastSide[b] ? 'g-none' : 'g-pipe');
      if (l <= L) out[l - 1] = cls;
      b = visibleParent[b] >= 0 ? branchStart[visibleParent[b]] : -1;
    }
    return out;
  }

  // The ARIA parent of a row: the branch point its side branch hangs from (-1: a top-level row).
  function ariaParent(layout, x) {
    const b = layout.branchStart[x];
    return b >= 0 ? layout.visibleParent[b] : -1;
  }

  return { markVisible, layoutRows, groupRows, guides, ariaParent };
})();
if (typeof module === 'object' && module.exports) module.exports = treeRows;
