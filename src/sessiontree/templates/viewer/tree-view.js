/* Tree view (DOM): the virtual rows of the sidebar tree, focus and keyboard, folding. */

function isSearchMatch(i) {
  if (!state.terms.length) return true;
  return searchText.matchesTerms(searchTextOf(i), state.terms);
}

function searchTextOf(i) {
  let text = state.searchTexts[i];
  if (text === undefined) {
    text = searchText.entryText(entries()[i], state.fragsDone ? state.frags[i] : '');
    if (state.fragsDone) state.searchTexts[i] = text;
  }
  return text;
}

// Warm the search index in idle time so the first search over a large session is instant.
function warmSearch() {
  const step = (deadline) => {
    const until = performance.now() + Math.max(4, Math.min(12, deadline.timeRemaining()));
    while (state.searchTextsBuilt < state.index.count && performance.now() < until) searchTextOf(state.searchTextsBuilt++);
    if (state.searchTextsBuilt < state.index.count) idle(step);
  };
  idle(step);
}

function computeRows() {
  const marked = treeRows.markVisible(state.index, state.filter, isSearchMatch, FILTERS, entryIndex.passesFilter);
  const layout = treeRows.layoutRows(state.index, marked.visible, marked.visibleCount, state.collapsed);
  state.layout = Object.assign(layout, { visibleCount: marked.visibleCount, counts: marked.counts });
}

const CATEGORY_TAG = { user: 'user', assistant: 'asst', tool: 'tool', notice: 'note', summary: 'sum',
  custom: 'cust', meta: 'meta', unknown: '?' };

function renderTreeRows() {
  const tree = ui.tree;
  const total = state.layout.rows.length;
  // role=tree needs treeitems: with none, the tree steps aside for a plain message.
  tree.hidden = !total;
  ui.treeEmpty.hidden = !!total;
  ui.treeInner.style.height = total * ROW_HEIGHT + 'px';
  const top = tree.scrollTop;
  const height = tree.clientHeight || 600;
  const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - 8);
  const end = Math.min(total, Math.ceil((top + height) / ROW_HEIGHT) + 8);
  const hadFocus = tree.contains(doc.activeElement) && doc.activeElement !== tree;
  const frag = doc.createDocumentFragment();
  for (let r = first; r < end; r++) frag.appendChild(buildRow(r));
  ui.treeInner.replaceChildren(frag);
  const focusIn = state.focusRow >= first && state.focusRow < end;
  tree.tabIndex = focusIn ? -1 : 0;
  if (hadFocus && focusIn) rowElement(state.focusRow).focus({ preventScroll: true });
}

function buildRow(r) {
  const layout = state.layout;
  const x = layout.rows[r];
  const meta = entries()[x];
  const row = h('div', {
    class: 'st-row', role: 'treeitem', 'aria-level': String(layout.level[x] + 1),
    'aria-selected': String(x === state.leaf), 'data-row': String(r), 'data-id': str(meta.id),
    'aria-posinset': String(layout.rowPos[r]), 'aria-setsize': String(layout.groupSize[layout.rowGroup[r]]),
  });
  row.tabIndex = r === state.focusRow ? 0 : -1;
  row.style.top = r * ROW_HEIGHT + 'px';
  if (state.onPath.has(x)) row.classList.add('st-on-path');
  if (x === state.leaf) row.classList.add('st-current');
  if (x === state.reading) { row.classList.add('st-reading'); row.setAttribute('aria-current', 'location'); }
  for (const g of treeRows.guides(layout, x, MAX_GUIDES)) row.appendChild(h('span', { class: 'st-g ' + g, 'aria-hidden': 'true' }));
  // Single-child chains stay flat (same level); only branch points nest and fold.
  if (layout.visibleChildren[x] > 1) {
    const open = !state.collapsed.has(x);
    row.setAttribute('aria-expanded', String(open));
    row.appendChild(h('span', { class: 'st-twisty', 'aria-hidden': 'true' }, open ? '▾' : '▸'));
  } else {
    row.appendChild(h('span', { class: 'st-twisty st-leafdot', 'aria-hidden': 'true' }));
  }
  const cat = Object.prototype.hasOwnProperty.call(CATEGORY_TAG, meta.cat) ? meta.cat : 'unknown';
  row.appendChild(h('span', { class: 'st-tag st-tag-' + cat }, CATEGORY_TAG[cat]));
  if (meta.label) row.appendChild(h('span', { class: 'st-badge' }, str(meta.label)));
  if (meta.error) row.appendChild(h('span', { class: 'st-err-dot', title: 'error' }, '!'));
  row.appendChild(h('span', { class: 'st-prev' }, str(meta.preview) || str(meta.type)));
  return row;
}

function rowElement(r) { return ui.treeInner.querySelector('[data-row="' + r + '"]'); }

function scrollRowIntoView(r) {
  const tree = ui.tree;
  const y = r * ROW_HEIGHT;
  if (y < tree.scrollTop) tree.scrollTop = y;
  else if (y + ROW_HEIGHT > tree.scrollTop + tree.clientHeight) tree.scrollTop = y + ROW_HEIGHT - tree.clientHeight;
}

function focusRow(r, move) {
  const rows = state.layout.rows;
  if (!rows.length) return;
  state.focusRow = Math.max(0, Math.min(rows.length - 1, r));
  scrollRowIntoView(state.focusRow);
  renderTreeRows();
  if (move !== false) { const e = rowElement(state.focusRow); if (e) e.focus({ preventScroll: true }); }
}

function refreshTree() {
  computeRows();
  const layout = state.layout;
  const leafRow = state.leaf >= 0 ? layout.rowOf[state.leaf] : -1;
  state.focusRow = leafRow >= 0 ? leafRow : Math.min(state.focusRow, Math.max(0, layout.rows.length - 1));
  ui.status.textContent = layout.visibleCount + ' / ' + state.index.count + ' entries';
  for (const [f] of FILTERS) {
    const b = ui.filterButtons[f];
    b.setAttribute('aria-pressed', String(f === state.filter));
    b.querySelector('.st-count').textContent = String(layout.counts[f]);
  }
  renderTreeRows();
}

function toggleCollapse(x) {
  if (state.collapsed.has(x)) state.collapsed.delete(x); else state.collapsed.add(x);
  computeRows();
  state.focusRow = state.layout.rowOf[x];
  renderTreeRows();
}

function onTreeKey(e) {
  const layout = state.layout;
  const r = state.focusRow;
  const x = layout.rows[r];
  if (x === undefined) return;
  const branches = layout.visibleChildren[x] > 1;
  switch (e.key) {
    case 'ArrowDown': focusRow(r + 1); break;
    case 'ArrowUp': focusRow(r - 1); break;
    case 'Home': focusRow(0); break;
    case 'End': focusRow(layout.rows.length - 1); break;
    case 'PageDown': focusRow(r + Math.floor(ui.tree.clientHeight / ROW_HEIGHT)); break;
    case 'PageUp': focusRow(r - Math.floor(ui.tree.clientHeight / ROW_HEIGHT)); break;
    case 'ArrowRight':
      if (branches && state.collapsed.has(x)) { toggleCollapse(x); focusRow(state.layout.rowOf[x]); }
      else if (branches) focusRow(r + 1);
      break;
    case 'ArrowLeft': {
      const up = treeRows.ariaParent(layout, x);
      if (branches && !state.collapsed.has(x)) { toggleCollapse(x); focusRow(state.layout.rowOf[x]); }
      else if (up >= 0) focusRow(layout.rowOf[up]);
      break;
    }
    case 'Enter': case ' ':
      selectLeaf(x, { t0: e.timeStamp });
      // On a narrow screen the overlay closed and focus went back to its menu button.
      if (!isOverlay()) focusRow(state.layout.rowOf[x]);
      break;
    default: return;
  }
  e.preventDefault();
  e.stopPropagation();
}
