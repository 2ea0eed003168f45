/* Chrome (DOM): the UI skeleton, toolbar, toast, image zoom, help, theme, sidebar and its resizer,
 * event wiring and the page-wide keys. */

const SHORTCUTS = [
  ['/', 'Focus search'], ['Esc', 'Clear search / close'], ['j / k', 'Next / previous message'],
  ['J / K', 'Next / previous typed prompt'],
  ['[ / ]', 'Previous / next sibling branch'], ['t', 'Toggle thinking'],
  ['o', 'Expand / collapse all tool calls'], ['f', 'Focused view: prompts and final replies'],
  ['?', 'This help'],
  ['Arrows, Home, End', 'Move in the tree'], ['Enter', 'Show the focused node'],
  ['↓ in search', 'Go to the matches'],
];

let toastTimer = 0;
function toast(msg) {
  ui.toast.textContent = msg;
  ui.toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { ui.toast.hidden = true; }, 1800);
}

let overlayOpener = null;
function openOverlay(o) {
  if (!(ui.zoom.hidden && ui.help.hidden)) closeOverlays();
  overlayOpener = doc.activeElement;
  o.hidden = false;
  o.focus();
}

function openZoom(img) {
  ui.zoomImg.src = img.src;
  ui.zoomImg.alt = img.alt;
  openOverlay(ui.zoom);
}

function closeOverlays() {
  let closed = false;
  for (const o of [ui.zoom, ui.help]) if (!o.hidden) { o.hidden = true; closed = true; }
  if (!closed) return false;
  ui.zoomImg.removeAttribute('src');
  // Back where the reader was, so the keyboard does not start over from the top of the page.
  const back = overlayOpener;
  overlayOpener = null;
  if (back && back.isConnected && typeof back.focus === 'function') back.focus({ preventScroll: true });
  return true;
}

// A modal keeps Tab inside: between its buttons, or on the dialog itself when it has none.
function trapTab(e, o) {
  const stops = Array.from(o.querySelectorAll('button'));
  e.preventDefault();
  if (!stops.length) { o.focus(); return; }
  const at = stops.indexOf(doc.activeElement);
  const next = e.shiftKey ? (at <= 0 ? stops.length - 1 : at - 1) : (at + 1) % stops.length;
  stops[next].focus();
}

function effectiveTheme() {
  const t = root.getAttribute('data-theme');
  if (t === 'light' || t === 'dark') return t;
  return window.matchMedia && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

function syncThemeButton() {
  const dark = effectiveTheme() === 'dark';
  ui.theme.textContent = dark ? '☀' : '☾';
  ui.theme.title = dark ? 'Switch to light theme' : 'Switch to dark theme';
  ui.theme.setAttribute('aria-label', ui.theme.title);
}

function toggleTheme() {
  const next = effectiveTheme() === 'dark' ? 'light' : 'dark';
  root.setAttribute('data-theme', next);
  storage.set('st-theme', next);
  syncThemeButton();
}

function sidebarMax() { return Math.round(Math.max(240, window.innerWidth * 0.7)); }
function setSidebarWidth(px, save) {
  const w = Math.round(Math.max(SIDEBAR_MIN, Math.min(px, sidebarMax())));
  ui.app.style.setProperty('--st-side-w', w + 'px');
  ui.resizer.setAttribute('aria-valuenow', String(w));
  ui.resizer.setAttribute('aria-valuemax', String(sidebarMax()));
  if (save) storage.set('st-sidebar-w', String(w));
  renderTreeRows();
}

function isOverlay() { return window.matchMedia && matchMedia('(max-width: 760px)').matches; }
function closeSidebarIfOverlay() {
  if (isOverlay() && ui.app.classList.contains('st-side-open')) toggleSidebar(false);
}
function toggleSidebar(on) {
  const open = on == null ? !ui.app.classList.contains('st-side-open') : on;
  const focusInside = ui.side.contains(doc.activeElement);
  ui.app.classList.toggle('st-side-open', open);
  ui.menu.setAttribute('aria-expanded', String(open));
  // Focus goes in with the overlay (to the tree: the search box would pop up a phone's keyboard)
  // and back to the menu button when it closes around it.
  // It opens on the reader's place, as the tree beside the messages shows it.
  const reading = state.reading >= 0 ? state.layout.rowOf[state.reading] : -1;
  if (open && reading >= 0) state.focusRow = reading;
  if (open) requestAnimationFrame(() => focusRow(state.focusRow));
  else if (focusInside && isOverlay()) ui.menu.focus();
}

function buildUi() {
  ui.app = $('st-app');
  ui.side = $('st-sidebar');
  ui.main = $('st-main');
  ui.msgs = $('st-messages');
  const head = h('div', { class: 'st-side-head' });
  ui.search = h('input', { id: 'st-search', type: 'search', placeholder: 'Search  ( / )',
    'aria-label': 'Search entries', autocomplete: 'off', spellcheck: 'false' });
  const filters = h('div', { id: 'st-filters', role: 'group', 'aria-label': 'Filter entries' });
  ui.filterButtons = {};
  for (const [f, name] of FILTERS) {
    const b = h('button', { type: 'button', class: 'st-filter', 'data-filter': f, 'aria-pressed': 'false' }, name);
    b.appendChild(h('span', { class: 'st-count' }, '0'));
    ui.filterButtons[f] = b;
    filters.appendChild(b);
  }
  ui.status = h('div', { id: 'st-status', role: 'status', 'aria-live': 'polite' });
  head.append(ui.search, filters, ui.status);
  ui.tree = h('div', { id: 'st-tree', role: 'tree', 'aria-label': 'Session tree' });
  ui.treeInner = h('div', { class: 'st-tree-inner' });
  ui.tree.appendChild(ui.treeInner);
  ui.treeEmpty = h('div', { class: 'st-tree-empty' }, 'No matching entries');
  ui.treeEmpty.hidden = true;
  // Inside the sidebar landmark; a focusable separator is a widget stating its value (px).
  ui.resizer = h('div', { id: 'st-resizer', role: 'separator', 'aria-orientation': 'vertical',
    'aria-label': 'Resize sidebar', 'aria-controls': 'st-sidebar', tabindex: '0',
    'aria-valuemin': String(SIDEBAR_MIN), 'aria-valuemax': String(sidebarMax()),
    'aria-valuenow': String(SIDEBAR_WIDTH) });
  ui.side.replaceChildren(head, buildOutlineUi(), ui.tree, ui.treeEmpty, ui.resizer);

  const bar = h('div', { id: 'st-toolbar' });
  ui.menu = h('button', { type: 'button', id: 'st-menu', 'aria-label': 'Show the session tree',
    'aria-controls': 'st-sidebar', 'aria-expanded': 'false' }, '☰');
  ui.theme = h('button', { type: 'button', id: 'st-theme' });
  ui.helpBtn = h('button', { type: 'button', id: 'st-help-btn', 'aria-label': 'Keyboard shortcuts',
    title: 'Keyboard shortcuts (?)' }, '?');
  const tool = (id, text, label) => h('button', { type: 'button', id, class: 'st-tool-btn', 'aria-label': label, title: label }, text);
  ui.prevPrompt = tool('st-prev-prompt', '↑', 'Previous prompt (K)');
  ui.nextPrompt = tool('st-next-prompt', '↓', 'Next prompt (J)');
  ui.expandAll = tool('st-expand-all', '⊞', 'Expand all tool calls (o)');
  ui.collapseAll = tool('st-collapse-all', '⊟', 'Collapse all tool calls (o)');
  ui.focused = tool('st-focused', '◎', 'Focused view: prompts and final replies (f)');
  ui.focused.setAttribute('aria-pressed', 'false');
  bar.append(ui.menu, ui.prevPrompt, ui.nextPrompt, ui.expandAll, ui.collapseAll, ui.focused, ui.theme, ui.helpBtn);
  ui.main.prepend(bar);

  ui.top = h('div', { class: 'st-edge st-edge-top' });
  ui.bottom = h('div', { class: 'st-edge st-edge-bottom' });

  ui.help = h('div', { id: 'st-help', class: 'st-overlay', role: 'dialog', 'aria-modal': 'true',
    'aria-labelledby': 'st-help-title', tabindex: '-1' });
  const box = h('div', { class: 'st-help-box' });
  ui.helpClose = h('button', { type: 'button', class: 'st-help-close', 'aria-label': 'Close' }, '×');
  box.append(ui.helpClose, h('h2', { id: 'st-help-title' }, 'Keyboard shortcuts'));
  const dl = h('dl');
  for (const [k, v] of SHORTCUTS) { dl.appendChild(h('dt', null, k)); dl.appendChild(h('dd', null, v)); }
  box.appendChild(dl);
  box.appendChild(h('p', null, 'Links: ?leafId=ID&targetId=ID opens a branch and scrolls to a message.'));
  ui.help.appendChild(box);
  ui.help.hidden = true;
  ui.zoom = h('div', { id: 'st-zoom', class: 'st-overlay', role: 'dialog', 'aria-modal': 'true',
    'aria-label': 'Image', tabindex: '-1' });
  ui.zoomImg = h('img', { alt: '' });
  ui.zoom.appendChild(ui.zoomImg);
  ui.zoom.hidden = true;
  ui.toast = h('div', { id: 'st-toast', role: 'status', 'aria-live': 'polite' });
  ui.toast.hidden = true;
  doc.body.append(ui.help, ui.zoom, ui.toast);
}

function bindEvents() {
  ui.search.addEventListener('input', onSearch);
  ui.search.addEventListener('keydown', (e) => {
    // From the search box straight to the matches (the debounced search moves focus to the first).
    if (e.key !== 'ArrowDown' || !state.layout.rows.length) return;
    e.preventDefault();
    focusRow(state.focusRow);
  });
  ui.side.querySelector('#st-filters').addEventListener('click', (e) => {
    const b = e.target.closest('.st-filter');
    if (b) setFilter(b.getAttribute('data-filter'));
  });
  let raf = 0;
  ui.tree.addEventListener('scroll', () => {
    if (!raf) raf = requestAnimationFrame(() => { raf = 0; renderTreeRows(); });
  }, { passive: true });
  ui.tree.addEventListener('click', (e) => {
    const row = e.target.closest('.st-row');
    if (!row) return;
    const r = Number(row.getAttribute('data-row'));
    const x = state.layout.rows[r];
    if (e.target.closest('.st-twisty') && state.layout.visibleChildren[x] > 1) { toggleCollapse(x); return; }
    state.focusRow = r;
    selectLeaf(x, { t0: e.timeStamp });
  });
  ui.tree.addEventListener('focus', (e) => { if (e.target === ui.tree) focusRow(state.focusRow); });
  ui.tree.addEventListener('focusin', (e) => {
    const row = e.target.closest && e.target.closest('.st-row');
    if (!row) return;
    // Roving tabindex: whichever row takes focus (mouse, script, keys) becomes the tab stop.
    state.focusRow = Number(row.getAttribute('data-row'));
    for (const r of ui.treeInner.querySelectorAll('.st-row[tabindex="0"]')) if (r !== row) r.tabIndex = -1;
    row.tabIndex = 0;
  });
  ui.tree.addEventListener('keydown', onTreeKey);
  ui.msgs.addEventListener('click', (e) => {
    const t = e.target;
    const more = t.closest('.st-more');
    if (more) { const o = more.closest('.st-output'); if (o) setOutput(o, !o.classList.contains('st-expanded')); return; }
    const link = t.closest('.st-link');
    if (link) { copyLink(link); return; }
    const img = t.closest('img.st-img');
    if (img && img.src) openZoom(img);
  });
  ui.msgs.addEventListener('keydown', (e) => {
    const img = e.target.closest && e.target.closest('img.st-img');
    if (!img || !img.src || (e.key !== 'Enter' && e.key !== ' ')) return;
    e.preventDefault();
    openZoom(img);
  });
  ui.zoom.addEventListener('click', closeOverlays);
  ui.help.addEventListener('click', (e) => { if (e.target === ui.help) closeOverlays(); });
  ui.theme.addEventListener('click', toggleTheme);
  ui.helpBtn.addEventListener('click', () => openOverlay(ui.help));
  ui.helpClose.addEventListener('click', closeOverlays);
  for (const o of [ui.help, ui.zoom]) o.addEventListener('keydown', (e) => { if (e.key === 'Tab') trapTab(e, o); });
  ui.menu.addEventListener('click', () => toggleSidebar());
  ui.prevPrompt.addEventListener('click', () => goPrompt(-1));
  ui.nextPrompt.addEventListener('click', () => goPrompt(1));
  ui.expandAll.addEventListener('click', () => setAllCalls(true));
  ui.collapseAll.addEventListener('click', () => setAllCalls(false));
  ui.focused.addEventListener('click', () => setFocused(!state.focused));
  bindReading();
  if (window.matchMedia) {
    const mq = matchMedia('(prefers-color-scheme: dark)');
    if (mq.addEventListener) mq.addEventListener('change', syncThemeButton);
  }
  const io = new IntersectionObserver((items) => {
    for (const it of items) {
      if (!it.isIntersecting) continue;
      if (it.target === ui.bottom) extendDown(SCROLL_STEP); else extendUp(SCROLL_STEP);
    }
  }, { root: ui.main, rootMargin: '600px 0px' });
  io.observe(ui.top);
  io.observe(ui.bottom);
  bindResizer();
  doc.addEventListener('keydown', onKey);
  window.addEventListener('resize', () => renderTreeRows());
  window.addEventListener('beforeprint', () => {
    while (extendDown(500));
    while (extendUp(500));
    // Print everything expanded; afterprint closes again what the reader had closed.
    for (const d of doc.querySelectorAll('details:not([open])')) { d.open = true; d.setAttribute('data-st-print-open', ''); }
  });
  window.addEventListener('afterprint', () => {
    for (const d of doc.querySelectorAll('details[data-st-print-open]')) { d.open = false; d.removeAttribute('data-st-print-open'); }
  });
}

function bindResizer() {
  let dragging = false;
  ui.resizer.addEventListener('pointerdown', (e) => {
    dragging = true;
    ui.resizer.setPointerCapture(e.pointerId);
    ui.app.classList.add('st-resizing');
  });
  ui.resizer.addEventListener('pointermove', (e) => {
    if (dragging) setSidebarWidth(e.clientX - ui.app.getBoundingClientRect().left, false);
  });
  const end = (e) => {
    if (!dragging) return;
    dragging = false;
    ui.app.classList.remove('st-resizing');
    setSidebarWidth(e.clientX - ui.app.getBoundingClientRect().left, true);
  };
  ui.resizer.addEventListener('pointerup', end);
  ui.resizer.addEventListener('pointercancel', end);
  ui.resizer.addEventListener('keydown', (e) => {
    const d = e.key === 'ArrowLeft' ? -20 : e.key === 'ArrowRight' ? 20 : 0;
    if (!d) return;
    e.preventDefault();
    e.stopPropagation();
    setSidebarWidth(ui.side.getBoundingClientRect().width + d, true);
  });
}

function onKey(e) {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  const typing = t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
  if (e.key === 'Escape') {
    if (closeOverlays()) return;
    if (ui.search.value || t === ui.search) {
      ui.search.value = '';
      state.terms = [];
      refreshTree();
      ui.search.blur();
      return;
    }
    closeSidebarIfOverlay();
    return;
  }
  if (typing) return;
  switch (e.key) {
    case '/': ui.search.focus(); ui.search.select(); break;
    case 'j': moveMessage(1); break;
    case 'k': moveMessage(-1); break;
    case '[': siblingBranch(-1, e.timeStamp); break;
    case ']': siblingBranch(1, e.timeStamp); break;
    case 't': toggleThinking(); break;
    case 'o': setAllCalls(!state.callsOpen); break;
    case 'f': setFocused(!state.focused); break;
    case 'J': goPrompt(1); break;
    case 'K': goPrompt(-1); break;
    case '?': if (ui.help.hidden) openOverlay(ui.help); else closeOverlays(); break;
    default: return;
  }
  e.preventDefault();
}
