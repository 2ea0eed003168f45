/* Shown messages (pure data, no DOM): which entries of the active path are shown under a filter,
 * which tool results merge into their call, and the window of messages rendered around an anchor. */
const shownMessages = (() => {
  const str = (v) => (typeof v === 'string' ? v : v == null ? '' : String(v));

  // A result whose call is shown on the path merges into it (first result per call); the rest
  // are shown in path order when they pass the filter.
  function computeShown(index, path, filter, passesFilter) {
    const entries = index.entries;
    const callAt = new Map();
    for (const i of path) {
      const calls = entries[i].calls;
      if (Array.isArray(calls) && passesFilter(entries[i], filter)) for (const c of calls) callAt.set(str(c), i);
    }
    const resultFor = new Map();
    const merged = new Set();
    const shown = [];
    const shownPos = new Map();
    for (const i of path) {
      const meta = entries[i];
      if (meta.result != null && callAt.has(str(meta.result)) && !resultFor.has(str(meta.result))) {
        resultFor.set(str(meta.result), i);
        merged.add(i);
        continue;
      }
      if (!passesFilter(meta, filter)) continue;
      shownPos.set(i, shown.length);
      shown.push(i);
    }
    return { shown, shownPos, resultFor, merged, callAt };
  }

  // The position in `shown` that stands for entry i: itself, its call (a merged result), or the
  // nearest shown entry before it on the path; -1 when nothing is shown (or i < 0).
  function anchorPos(view, index, path, i) {
    if (i < 0) return -1;
    if (view.shownPos.has(i)) return view.shownPos.get(i);
    if (view.merged.has(i)) {
      const a = view.callAt.get(str(index.entries[i].result));
      if (a !== undefined && view.shownPos.has(a)) return view.shownPos.get(a);
    }
    const p = path.indexOf(i);
    for (let k = p; k >= 0; k--) if (view.shownPos.has(path[k])) return view.shownPos.get(path[k]);
    return view.shown.length ? 0 : -1;
  }

  // [start, end) of the messages rendered first around anchor position a (from the top when a < 0).
  function windowAround(a, length, before, after) {
    const c = a < 0 ? 0 : a;
    return [Math.max(0, c - (a < 0 ? 0 : before)), Math.min(length, c + after)];
  }

  // The highest entry index the window [start, end) needs (calls pull in their results).
  function lastNeeded(index, view, start, end) {
    let need = 0;
    for (let k = start; k < end; k++) {
      const i = view.shown[k];
      need = Math.max(need, i);
      const calls = index.entries[i].calls;
      if (Array.isArray(calls)) {
        for (const c of calls) { const r = view.resultFor.get(str(c)); if (r !== undefined) need = Math.max(need, r); }
      }
    }
    return need;
  }

  return { computeShown, anchorPos, windowAround, lastNeeded };
})();
if (typeof module === 'object' && module.exports) module.exports = shownMessages;
