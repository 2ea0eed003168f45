/* Entry index (pure data, no DOM): entries by id, effective parents (cycles cut), children, roots,
 * subtree sizes, paths, and the category filters. An index is a plain object
 * { entries, count, ids, parent, children, roots, subtree } built in passes (the viewer yields
 * between them so a 100,000-entry page never blocks for long) or at once with build(). */
const entryIndex = (() => {
  const str = (v) => (typeof v === 'string' ? v : v == null ? '' : String(v));

  // [key, button label]: default hides meta (tool results show inside their call), the rest as named.
  const FILTERS = [
    ['default', 'Default'], ['no-tools', 'No tools'], ['user-only', 'User'],
    ['labeled', 'Labeled'], ['all', 'All'],
  ];

  function create(entries) {
    const list = Array.isArray(entries) ? entries : [];
    return { entries: list, count: list.length, ids: new Map(), parent: [], children: [], roots: [], subtree: [] };
  }

  // Pass 1: ids (a non-object entry becomes an unknown placeholder; a duplicated id: the last wins).
  function indexIds(index) {
    const entries = index.entries;
    for (let i = 0; i < index.count; i++) {
      if (!entries[i] || typeof entries[i] !== 'object') entries[i] = { id: '#' + i, cat: 'unknown' };
      index.ids.set(str(entries[i].id), i);
    }
  }

  function parentOf(index, i) {
    const id = str(index.entries[i].parentId);
    const p = index.ids.has(id) ? index.ids.get(id) : -1;
    return p === i ? -1 : p;
  }

  // Pass 2: effective parents. A parent chain that loops back on itself would hang every walk;
  // it is cut where it closes.
  function linkParents(index) {
    for (let i = 0; i < index.count; i++) index.parent[i] = parentOf(index, i);
    const seen = new Uint8Array(index.count);
    for (let i = 0; i < index.count; i++) {
      if (seen[i]) continue;
      const walk = [];
      let j = i;
      while (j >= 0 && seen[j] === 0) { seen[j] = 1; walk.push(j); j = index.parent[j]; }
      if (j >= 0 && seen[j] === 1) index.parent[j] = -1;
      for (const k of walk) seen[k] = 2;
    }
  }

  function linkChild(index, i) {
    const p = index.parent[i];
    if (p < 0) index.roots.push(i);
    else (index.children[p] || (index.children[p] = [])).push(i);
  }

  // Pass 3: children in file order, roots, and subtree sizes (which pick each branch point's
  // main line; iterative, as paths can be 100,000 deep).
  function linkChildren(index) {
    index.children = new Array(index.count);
    index.roots = [];
    for (let i = 0; i < index.count; i++) linkChild(index, i);
    const order = [];
    const stack = index.roots.slice();
    while (stack.length) {
      const x = stack.pop();
      order.push(x);
      const kids = index.children[x];
      if (kids) for (const k of kids) stack.push(k);
    }
    index.subtree = new Array(index.count).fill(1);
    for (let k = order.length - 1; k >= 0; k--) {
      const x = order[k];
      if (index.parent[x] >= 0) index.subtree[index.parent[x]] += index.subtree[x];
    }
  }

  function build(entries) {
    const index = create(entries);
    indexIds(index);
    linkParents(index);
    linkChildren(index);
    return index;
  }

  // Add one entry at the end (a live page); return its position.
  function addEntry(index, meta) {
    const i = index.count++;
    index.entries.push(meta);
    index.ids.set(str(meta.id), i);
    index.parent[i] = parentOf(index, i);
    linkChild(index, i);
    index.subtree[i] = 1;
    for (let j = index.parent[i], guard = 0; j >= 0 && guard < index.count; j = index.parent[j], guard++) {
      index.subtree[j]++;
    }
    return i;
  }

  // Root -> i, cycle-safe.
  function pathTo(index, i) {
    const out = [];
    for (let j = i, guard = 0; j >= 0 && guard <= index.count; j = index.parent[j], guard++) out.push(j);
    return out.reverse();
  }

  function passesFilter(meta, filter) {
    // An archived branch (oh-my-pi `archive`) stays in the file but out of view, except under "all".
    if (meta.archived && filter !== 'all') return false;
    switch (filter) {
      case 'default': return meta.cat !== 'meta';
      case 'no-tools': return meta.cat !== 'meta' && meta.cat !== 'tool';
      case 'user-only': return meta.cat === 'user';
      case 'labeled': return !!meta.label;
      default: return true;
    }
  }

  // The newest leaf under x (last children), backed up past entries the filter hides (labels, meta).
  function newestLeaf(index, x, filter) {
    const top = x;
    const kids = index.children;
    for (let guard = 0; kids[x] && kids[x].length && guard < index.count; guard++) x = kids[x][kids[x].length - 1];
    while (x !== top && !passesFilter(index.entries[x], filter) && index.parent[x] >= 0) x = index.parent[x];
    return x;
  }

  return {
    FILTERS, create, indexIds, linkParents, linkChildren, build, addEntry, pathTo, passesFilter, newestLeaf,
  };
})();
if (typeof module === 'object' && module.exports) module.exports = entryIndex;
