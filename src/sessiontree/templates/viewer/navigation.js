/* Navigation and links (DOM): choosing a leaf, sibling branches, j/k, filters, search, deep links. */

function setPath(i) {
  state.leaf = i;
  state.path = i >= 0 ? entryIndex.pathTo(state.index, i) : [];
  state.onPath = new Set(state.path);
  computeOutline();
}

function selectLeaf(i, opts) {
  if (i < 0 || i >= state.index.count) return;
  const o = opts || {};
  const t0 = o.t0 || performance.now();
  setPath(i);
  const r = state.layout.rowOf[i];
  if (r >= 0) { state.focusRow = r; scrollRowIntoView(r); }
  renderTreeRows();
  updateUrl(null);
  closeSidebarIfOverlay();
  renderWhenReady(o.anchor != null ? o.anchor : i, o.align || 'end', !!o.highlight, t0);
}

// While fragments still stream in, wait for the ones this screen needs (the last request wins).
function renderWhenReady(anchor, align, highlight, t0) {
  const token = ++state.pendingRender;
  const show = () => {
    if (token !== state.pendingRender) return;
    renderMessages(anchor, align, highlight);
    if (t0 == null) return;
    afterPaint().then(() => {
      try { performance.measure('st-branch-switch', { start: t0, end: performance.now() }); } catch (_) { /* */ }
    });
  };
  if (state.fragsDone) show(); else state.waitFrag(lastNeeded(anchor)).then(show);
}

function siblingBranch(d, t0) {
  const path = state.path;
  const { children, roots } = state.index;
  for (let k = path.length - 1; k >= 0; k--) {
    const siblings = k > 0 ? children[path[k - 1]] : roots;
    if (!siblings || siblings.length < 2) continue;
    const pos = siblings.indexOf(path[k]);
    const next = siblings[(pos + d + siblings.length) % siblings.length];
    selectLeaf(entryIndex.newestLeaf(state.index, next, state.filter), { anchor: next, align: 'start', highlight: true, t0 });
    toast('Branch ' + (siblings.indexOf(next) + 1) + ' of ' + siblings.length);
    return;
  }
  toast('No other branch on this path');
}

function moveMessage(d) {
  // A folded run's messages are passed over (its row stands for them until opened).
  const articles = () => Array.from(ui.msgs.children)
    .filter((e) => e.classList.contains('st-entry') && !e.classList.contains('st-folded'));
  let list = articles();
  let pos = list.findIndex((e) => Number(e.getAttribute('data-idx')) === state.current);
  if (pos < 0) {
    const visible = firstVisibleArticle();
    pos = visible ? list.indexOf(visible) - (d > 0 ? 1 : 0) : -1;
    if (d < 0 && pos < 0) pos = 0;
  }
  let next = pos + d;
  if (next >= list.length && extendDown(SCROLL_STEP)) list = articles();
  if (next < 0 && state.windowStart > 0) {
    const before = state.windowStart;
    extendUp(SCROLL_STEP);
    list = articles();
    next += before - state.windowStart;
  }
  if (next < 0 || next >= list.length) return;
  const el = list[next];
  for (const e of ui.msgs.querySelectorAll('.st-entry.st-cur')) e.classList.remove('st-cur');
  el.classList.add('st-cur');
  state.current = Number(el.getAttribute('data-idx'));
  el.scrollIntoView({ block: 'start' });
  el.focus({ preventScroll: true });
}

function setFilter(f) {
  const visible = firstVisibleArticle();
  state.filter = f;
  refreshTree();
  const anchor = visible ? Number(visible.getAttribute('data-idx')) : -1;
  renderWhenReady(anchor, 'start', false, null);
}

// The Focused view on or off (toolbar ◎, key f), kept where the reader is.
function setFocused(on) {
  const visible = firstVisibleArticle();
  state.focused = on;
  ui.focused.setAttribute('aria-pressed', String(on));
  root.classList.toggle('st-focused', on);
  renderWhenReady(visible ? Number(visible.getAttribute('data-idx')) : -1, 'start', false, null);
  toast(on ? 'Focused view: prompts and final replies' : 'Every message');
}

let searchTimer = 0;
function onSearch() {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    state.terms = searchText.parseTerms(ui.search.value);
    refreshTree();
    const rowOf = state.layout.rowOf;
    if (state.terms.length && state.layout.rows.length) { ui.tree.scrollTop = 0; state.focusRow = 0; renderTreeRows(); }
    else if (state.leaf >= 0 && rowOf[state.leaf] >= 0) { scrollRowIntoView(rowOf[state.leaf]); renderTreeRows(); }
  }, 90);
}

// The link to this page showing entry targetIndex (null: none) on the branch ending at leafId
// (the current leaf's when not given; null: none named).
function linkFor(targetIndex, leafId) {
  const base = location.href.split(/[?#]/)[0];
  const leaf = leafId !== undefined ? leafId : state.leaf >= 0 ? str(entries()[state.leaf].id) : null;
  const targetId = targetIndex != null && targetIndex >= 0 ? str(entries()[targetIndex].id) : null;
  // The fragment stays: an encrypted share's key is there, and a copied link must open the page.
  return linkQuery.buildLink(base, state.gist, leaf, targetId) + location.hash;
}

function updateUrl(targetIndex, leafId) {
  const next = linkFor(targetIndex, leafId);
  if (next === location.href) return;
  try { history.replaceState(history.state, '', next); } catch (_) { /* file:// or sandboxed */ }
}

async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) { await navigator.clipboard.writeText(text); return true; }
  } catch (_) { /* fall back below */ }
  const area = h('textarea', { readonly: '', 'aria-hidden': 'true', class: 'st-offscreen' });
  area.value = text;
  doc.body.appendChild(area);
  area.select();
  let ok = false;
  try { ok = doc.execCommand('copy'); } catch (_) { ok = false; }
  area.remove();
  return ok;
}

async function copyLink(button) {
  const art = button.closest('.st-entry');
  if (!art) return;
  const url = linkFor(Number(art.getAttribute('data-idx')));
  const ok = await copyText(url);
  button.classList.add('st-copied');
  setTimeout(() => button.classList.remove('st-copied'), 1500);
  toast(ok ? 'Link copied' : 'Copy failed: ' + url);
}
