/* sessiontree export viewer: tree sidebar, filters, search, deep links, keyboard, themes.
 * Plain ES2020 in one IIFE; no libraries, no network. Every string from the session is untrusted:
 * metadata goes through textContent only; fragments are escaped HTML made by the exporter. */
(() => {
  'use strict';

  const ROW_H = 24;            // tree row height in px (rows are virtual: only visible ones exist)
  const WIN_BEFORE = 6;        // messages rendered above the anchor on a (re)render
  const WIN_AFTER = 14;        // ... and below it; the rest arrives in idle chunks or on scroll
  const IDLE_CAP = 4000;       // beyond this many messages, render only on scroll
  const STEP = 40;             // messages added when the reader scrolls to an edge
  const MAX_GUIDES = 32;       // deeper trees draw no more guide columns
  const FILTERS = [
    ['default', 'Default'], ['no-tools', 'No tools'], ['user-only', 'User'],
    ['labeled', 'Labeled'], ['all', 'All'],
  ];
  const SHORTCUTS = [
    ['/', 'Focus search'], ['Esc', 'Clear search / close'], ['j / k', 'Next / previous message'],
    ['[ / ]', 'Previous / next sibling branch'], ['t', 'Toggle thinking'],
    ['o', 'Toggle tool outputs'], ['?', 'This help'],
    ['Arrows, Home, End', 'Move in the tree'], ['Enter', 'Show the focused node'],
  ];

  const doc = document;
  const root = doc.documentElement;
  const $ = (id) => doc.getElementById(id);
  const store = {
    get(k) { try { return window.localStorage.getItem(k); } catch (_) { return null; } },
    set(k, v) { try { window.localStorage.setItem(k, v); } catch (_) { /* storage unavailable */ } },
  };
  const mark = (name) => { try { performance.mark(name); } catch (_) { /* no marks */ } };
  const yieldTask = () => (globalThis.scheduler && typeof scheduler.yield === 'function'
    ? scheduler.yield() : new Promise((r) => setTimeout(r, 0)));
  const afterPaint = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const idle = (fn) => (typeof requestIdleCallback === 'function'
    ? requestIdleCallback(fn, { timeout: 300 })
    : setTimeout(() => fn({ didTimeout: true, timeRemaining: () => 0 }), 30));

  function h(tag, attrs, text) {
    const e = doc.createElement(tag);
    if (attrs) for (const k of Object.keys(attrs)) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = String(text);
    return e;
  }
  const str = (v) => (typeof v === 'string' ? v : v == null ? '' : String(v));

  // ---------------------------------------------------------------- state
  const S = {
    E: [], n: 0, ids: new Map(), par: [], kids: [], sub: [], roots: [], frags: null, images: Object.create(null),
    leaf: -1, path: [], onPath: new Set(),
    filter: 'default', terms: [], text: [], textBuilt: 0,
    collapsed: new Set(), rows: [], rowOf: null, lvl: null, bs: null, ep: null, last: null, nkids: null,
    visCount: 0, counts: {}, focusRow: 0,
    shown: [], shownPos: new Map(), resultFor: new Map(), merged: new Set(), lo: 0, hi: 0, gen: 0,
    cur: -1, fragsDone: false, pending: 0, thinkingOpen: false, outputsOpen: false, gist: null,
  };
  const ui = {};

  // ---------------------------------------------------------------- data
  function addToIndex(i) {
    const m = S.E[i];
    const p = S.ids.has(str(m.parentId)) ? S.ids.get(str(m.parentId)) : -1;
    S.par[i] = p === i ? -1 : p;
  }

  // Several short passes with yields between them: a 100,000-entry page never blocks for long.
  async function buildIndex() {
    const E = S.E;
    for (let i = 0; i < S.n; i++) {
      if (!E[i] || typeof E[i] !== 'object') E[i] = { id: '#' + i, cat: 'unknown' };
      S.ids.set(str(E[i].id), i);
    }
    await yieldTask();
    for (let i = 0; i < S.n; i++) addToIndex(i);
    breakCycles();
    await yieldTask();
    S.kids = new Array(S.n);
    S.roots = [];
    for (let i = 0; i < S.n; i++) linkChild(i);
    countSubtrees();
  }

  // Subtree sizes pick each branch point's main line (iterative: paths can be 100,000 deep).
  function countSubtrees() {
    const order = [];
    const stack = S.roots.slice();
    while (stack.length) {
      const x = stack.pop();
      order.push(x);
      const ks = S.kids[x];
      if (ks) for (const k of ks) stack.push(k);
    }
    S.sub = new Array(S.n).fill(1);
    for (let k = order.length - 1; k >= 0; k--) {
      const x = order[k];
      if (S.par[x] >= 0) S.sub[S.par[x]] += S.sub[x];
    }
  }

  function linkChild(i) {
    const p = S.par[i];
    if (p < 0) S.roots.push(i);
    else (S.kids[p] || (S.kids[p] = [])).push(i);
  }

  // A parent chain that loops back on itself would hang every walk; cut it where it closes.
  function breakCycles() {
    const state = new Uint8Array(S.n);
    for (let i = 0; i < S.n; i++) {
      if (state[i]) continue;
      const walk = [];
      let j = i;
      while (j >= 0 && state[j] === 0) { state[j] = 1; walk.push(j); j = S.par[j]; }
      if (j >= 0 && state[j] === 1) S.par[j] = -1;
      for (const k of walk) state[k] = 2;
    }
  }

  function pathTo(i) {
    const out = [];
    for (let j = i, guard = 0; j >= 0 && guard <= S.n; j = S.par[j], guard++) out.push(j);
    return out.reverse();
  }

  function setPath(i) {
    S.leaf = i;
    S.path = i >= 0 ? pathTo(i) : [];
    S.onPath = new Set(S.path);
  }

  function passFilter(i, f) {
    const m = S.E[i];
    switch (f || S.filter) {
      case 'default': return m.cat !== 'meta';
      case 'no-tools': return m.cat !== 'meta' && m.cat !== 'tool';
      case 'user-only': return m.cat === 'user';
      case 'labeled': return !!m.label;
      default: return true;
    }
  }

  const NAMED = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  function decodeEntities(s) {
    return s.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (all, g) => {
      if (g[0] !== '#') return NAMED[g.toLowerCase()] || all;
      const cp = g[1] === 'x' || g[1] === 'X' ? parseInt(g.slice(2), 16) : parseInt(g.slice(1), 10);
      try { return String.fromCodePoint(cp); } catch (_) { return all; }
    });
  }

  function textOf(i) {
    let t = S.text[i];
    if (t === undefined) {
      const m = S.E[i];
      const frag = S.fragsDone ? str(S.frags[i]) : '';
      t = [decodeEntities(frag.replace(/<[^>]*>/g, ' ')), str(m.preview), str(m.label), str(m.type),
        str(m.role), str(m.cat), str(m.id)].join(' ').toLowerCase();
      if (S.fragsDone) S.text[i] = t;
    }
    return t;
  }

  function matches(i) {
    if (!S.terms.length) return true;
    const t = textOf(i);
    for (const term of S.terms) if (!t.includes(term)) return false;
    return true;
  }

  // Warm the search index in idle time so the first search over a large session is instant.
  function warmSearch() {
    const step = (dl) => {
      const until = performance.now() + Math.max(4, Math.min(12, dl.timeRemaining()));
      while (S.textBuilt < S.n && performance.now() < until) textOf(S.textBuilt++);
      if (S.textBuilt < S.n) idle(step);
    };
    idle(step);
  }

  // ---------------------------------------------------------------- tree rows (flattened)
  function computeRows() {
    const n = S.n;
    const vis = new Uint8Array(n);
    const counts = {};
    for (const [f] of FILTERS) counts[f] = 0;
    let visCount = 0;
    for (let i = 0; i < n; i++) {
      if (!matches(i)) continue;
      for (const [f] of FILTERS) if (passFilter(i, f)) counts[f]++;
      if (passFilter(i)) { vis[i] = 1; visCount++; }
    }
    // Hidden entries fold away: each visible entry hangs under its nearest visible ancestor.
    const ep = new Int32Array(n).fill(-2);
    const chain = [];
    for (let i = 0; i < n; i++) {
      if (ep[i] !== -2) continue;
      chain.length = 0;
      let j = S.par[i];
      let res = -1;
      for (;;) {
        if (j < 0) { res = -1; break; }
        if (vis[j]) { res = j; break; }
        if (ep[j] !== -2) { res = ep[j]; break; }
        chain.push(j);
        j = S.par[j];
      }
      ep[i] = res;
      for (const k of chain) ep[k] = res;
    }
    const nk = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) if (vis[i]) nk[ep[i] < 0 ? n : ep[i]]++;
    const start = new Int32Array(n + 2);
    for (let i = 0; i <= n; i++) start[i + 1] = start[i] + nk[i];
    const fill = start.slice(0, n + 1);
    const list = new Int32Array(visCount);
    for (let i = 0; i < n; i++) if (vis[i]) list[fill[ep[i] < 0 ? n : ep[i]]++] = i;

    const lvl = new Int32Array(n);
    const bs = new Int32Array(n).fill(-1);
    const last = new Uint8Array(n);
    const rowOf = new Int32Array(n).fill(-1);
    const rows = [];
    const stack = [];
    for (let k = start[n + 1] - 1; k >= start[n]; k--) stack.push(list[k]);
    while (stack.length) {
      const x = stack.pop();
      rowOf[x] = rows.length;
      rows.push(x);
      const c = nk[x];
      if (!c) continue;
      // The child with the largest subtree (the main line) continues at this level; the others are
      // side branches one level in, listed first. Many retries stay flat instead of drifting right.
      let cont = list[start[x]];
      for (let k = start[x] + 1; k < start[x + 1]; k++) if (S.sub[list[k]] >= S.sub[cont]) cont = list[k];
      lvl[cont] = lvl[x];
      bs[cont] = bs[x];
      stack.push(cont);
      if (S.collapsed.has(x)) continue;
      let lastSide = true;
      for (let k = start[x + 1] - 1; k >= start[x]; k--) {
        const y = list[k];
        if (y === cont) continue;
        lvl[y] = lvl[x] + 1;
        bs[y] = y;
        last[y] = lastSide ? 1 : 0;
        lastSide = false;
        stack.push(y);
      }
    }
    Object.assign(S, { rows, rowOf, lvl, bs, ep, last, nkids: nk, visCount, counts });
    groupRows();
  }

  // Only visible rows exist in the DOM, so each row states its place among its ARIA siblings:
  // consecutive rows of one level form a group until a shallower row closes it.
  function groupRows() {
    const pos = new Int32Array(S.rows.length);
    const grp = new Int32Array(S.rows.length);
    const size = [];
    const open = [];
    let prev = -1;
    for (let r = 0; r < S.rows.length; r++) {
      const L = S.lvl[S.rows[r]];
      for (let l = Math.min(L, prev) + 1; l <= Math.max(L, prev); l++) open[l] = -1;
      if (!(open[L] >= 0)) { open[L] = size.length; size.push(0); }
      grp[r] = open[L];
      pos[r] = ++size[open[L]];
      prev = L;
    }
    Object.assign(S, { rowPos: pos, rowGrp: grp, grpSize: size });
  }

  function guides(x) {
    const L = Math.min(S.lvl[x], MAX_GUIDES);
    const out = new Array(L);
    let b = S.bs[x];
    for (let l = S.lvl[x]; l >= 1 && b >= 0; l--) {
      const cls = l === S.lvl[x] && b === x ? (S.last[b] ? 'g-end' : 'g-tee') : (S.last[b] ? 'g-none' : 'g-pipe');
      if (l <= L) out[l - 1] = cls;
      b = S.ep[b] >= 0 ? S.bs[S.ep[b]] : -1;
    }
    return out;
  }

  const CAT_TAG = { user: 'user', assistant: 'asst', tool: 'tool', notice: 'note', summary: 'sum',
    custom: 'cust', meta: 'meta', unknown: '?' };

  function renderTreeRows() {
    const tree = ui.tree;
    const total = S.rows.length;
    ui.treeInner.style.height = total * ROW_H + 'px';
    const top = tree.scrollTop;
    const hgt = tree.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW_H) - 8);
    const end = Math.min(total, Math.ceil((top + hgt) / ROW_H) + 8);
    const hadFocus = tree.contains(doc.activeElement) && doc.activeElement !== tree;
    const frag = doc.createDocumentFragment();
    for (let r = first; r < end; r++) frag.appendChild(buildRow(r));
    ui.treeInner.replaceChildren(frag);
    const focusIn = S.focusRow >= first && S.focusRow < end;
    tree.tabIndex = focusIn ? -1 : 0;
    if (hadFocus && focusIn) rowEl(S.focusRow).focus({ preventScroll: true });
    if (!total) ui.treeInner.appendChild(h('div', { class: 'st-tree-empty' }, 'No matching entries'));
  }

  function buildRow(r) {
    const x = S.rows[r];
    const m = S.E[x];
    const row = h('div', {
      class: 'st-row', role: 'treeitem', 'aria-level': String(S.lvl[x] + 1),
      'aria-selected': String(x === S.leaf), 'data-row': String(r), 'data-id': str(m.id),
      'aria-posinset': String(S.rowPos[r]), 'aria-setsize': String(S.grpSize[S.rowGrp[r]]),
    });
    row.tabIndex = r === S.focusRow ? 0 : -1;
    row.style.top = r * ROW_H + 'px';
    if (S.onPath.has(x)) row.classList.add('st-on-path');
    if (x === S.leaf) row.classList.add('st-current');
    for (const g of guides(x)) row.appendChild(h('span', { class: 'st-g ' + g, 'aria-hidden': 'true' }));
    // Single-child chains stay flat (same level); only branch points nest and fold.
    if (S.nkids[x] > 1) {
      const open = !S.collapsed.has(x);
      row.setAttribute('aria-expanded', String(open));
      row.appendChild(h('span', { class: 'st-twisty', 'aria-hidden': 'true' }, open ? '▾' : '▸'));
    } else {
      row.appendChild(h('span', { class: 'st-twisty st-leafdot', 'aria-hidden': 'true' }));
    }
    const cat = Object.prototype.hasOwnProperty.call(CAT_TAG, m.cat) ? m.cat : 'unknown';
    row.appendChild(h('span', { class: 'st-tag st-tag-' + cat }, CAT_TAG[cat]));
    if (m.label) row.appendChild(h('span', { class: 'st-badge' }, str(m.label)));
    if (m.error) row.appendChild(h('span', { class: 'st-err-dot', title: 'error' }, '!'));
    row.appendChild(h('span', { class: 'st-prev' }, str(m.preview) || str(m.type)));
    return row;
  }

  function rowEl(r) { return ui.treeInner.querySelector('[data-row="' + r + '"]'); }

  function scrollRowIntoView(r) {
    const tree = ui.tree;
    const y = r * ROW_H;
    if (y < tree.scrollTop) tree.scrollTop = y;
    else if (y + ROW_H > tree.scrollTop + tree.clientHeight) tree.scrollTop = y + ROW_H - tree.clientHeight;
  }

  function focusRow(r, move) {
    if (!S.rows.length) return;
    S.focusRow = Math.max(0, Math.min(S.rows.length - 1, r));
    scrollRowIntoView(S.focusRow);
    renderTreeRows();
    if (move !== false) { const e = rowEl(S.focusRow); if (e) e.focus({ preventScroll: true }); }
  }

  function refreshTree() {
    computeRows();
    const lr = S.leaf >= 0 ? S.rowOf[S.leaf] : -1;
    S.focusRow = lr >= 0 ? lr : Math.min(S.focusRow, Math.max(0, S.rows.length - 1));
    ui.status.textContent = S.visCount + ' / ' + S.n + ' entries';
    for (const [f] of FILTERS) {
      const b = ui.filterBtns[f];
      b.setAttribute('aria-pressed', String(f === S.filter));
      b.querySelector('.st-count').textContent = String(S.counts[f]);
    }
    renderTreeRows();
  }

  // ---------------------------------------------------------------- messages (windowed)
  function computeShown() {
    const callAt = new Map();
    for (const i of S.path) {
      const calls = S.E[i].calls;
      if (Array.isArray(calls) && passFilter(i)) for (const c of calls) callAt.set(str(c), i);
    }
    S.resultFor = new Map();
    S.merged = new Set();
    S.shown = [];
    S.shownPos = new Map();
    for (const i of S.path) {
      const m = S.E[i];
      if (m.result != null && callAt.has(str(m.result)) && !S.resultFor.has(str(m.result))) {
        S.resultFor.set(str(m.result), i);
        S.merged.add(i);
        continue;
      }
      if (!passFilter(i)) continue;
      S.shownPos.set(i, S.shown.length);
      S.shown.push(i);
    }
    S.callAt = callAt;
  }

  const SAFE_IMG = /^data:image\/(png|jpeg|jpg|gif|webp|bmp|avif|svg\+xml|x-icon);base64,/i;
  // An image served by URL (PageOptions.image_prefix): a path ending in <sha256>.<ext>, no scheme.
  const IMG_URL = /^(?:\.{0,2}\/)?(?:[A-Za-z0-9._~-]+\/)*[0-9a-f]{64}\.(png|jpg|gif|webp)$/;
  function imageSrc(sha) {
    const u = S.images[sha];
    if (typeof u !== 'string') return '';
    return SAFE_IMG.test(u.slice(0, 40)) || IMG_URL.test(u) ? u : '';
  }

  function parseFrag(i) {
    const tpl = doc.createElement('template');
    tpl.innerHTML = S.frags ? str(S.frags[i]) : '';
    return tpl.content.firstElementChild;
  }

  function buildArticle(i) {
    let art = parseFrag(i);
    if (!art || !art.classList.contains('st-entry')) {
      art = h('article', { class: 'st-entry st-unknown' });
      art.appendChild(h('pre', null, str(S.frags && S.frags[i])));
    }
    art.setAttribute('data-idx', String(i));
    art.tabIndex = -1;
    for (const call of art.querySelectorAll('.st-call[data-call-id]')) {
      const ti = S.resultFor.get(call.getAttribute('data-call-id'));
      if (ti !== undefined) fillCall(call, ti);
    }
    prepare(art);
    return art;
  }

  function fillCall(call, ti) {
    const frag = parseFrag(ti);
    const res = frag && (frag.matches('.st-result') ? frag : frag.querySelector('.st-result'));
    const slot = call.querySelector('.st-call-result');
    if (res && slot) { slot.replaceChildren(res); prepare(res); }
    call.setAttribute('data-status', S.E[ti].error ? 'error' : 'success');
    call.setAttribute('data-result-idx', String(ti));
  }

  function prepare(scope) {
    for (const img of scope.querySelectorAll('img.st-img[data-img]')) {
      const src = imageSrc(img.getAttribute('data-img'));
      if (src) img.src = src; else img.classList.add('st-img-missing');
    }
    if (S.thinkingOpen) for (const d of scope.querySelectorAll('details.st-thinking')) d.open = true;
    for (const o of scope.querySelectorAll('.st-output[data-more]')) setOutput(o, S.outputsOpen);
  }

  function setOutput(out, on) {
    out.classList.toggle('st-expanded', on);
    for (const e of out.querySelectorAll('[hidden], [data-st-hidden]')) {
      if (e.closest('.st-output') !== out) continue;
      if (on && e.hidden) { e.setAttribute('data-st-hidden', ''); e.hidden = false; }
      else if (!on && e.hasAttribute('data-st-hidden')) e.hidden = true;
    }
    for (const b of out.querySelectorAll('.st-more')) {
      if (b.closest('.st-output') !== out) continue;
      if (!b.hasAttribute('data-label')) {
        b.setAttribute('data-label', b.textContent.trim() || (out.getAttribute('data-more') + ' more lines'));
      }
      b.textContent = on ? 'Show less' : b.getAttribute('data-label');
      b.setAttribute('aria-expanded', String(on));
    }
  }

  function renderRange(lo, hi) {
    const frag = doc.createDocumentFragment();
    for (let k = lo; k < hi; k++) frag.appendChild(buildArticle(S.shown[k]));
    return frag;
  }

  function extendDown(count) {
    if (S.hi >= S.shown.length || !S.fragsDone) return false;
    const hi = Math.min(S.shown.length, S.hi + count);
    ui.msgs.insertBefore(renderRange(S.hi, hi), ui.bottom);
    S.hi = hi;
    syncSentinels();
    return true;
  }

  function extendUp(count) {
    if (S.lo <= 0 || !S.fragsDone) return false;
    const lo = Math.max(0, S.lo - count);
    const ref = ui.top.nextElementSibling;
    const before = ref ? ref.getBoundingClientRect().top : 0;
    ui.msgs.insertBefore(renderRange(lo, S.lo), ref);
    S.lo = lo;
    // Keep what the reader looks at still while earlier messages arrive above it.
    if (ref) ui.main.scrollTop += ref.getBoundingClientRect().top - before;
    syncSentinels();
    return true;
  }

  function syncSentinels() {
    ui.top.textContent = S.lo > 0 ? S.lo + ' earlier messages' : '';
    ui.top.hidden = S.lo <= 0;
    ui.bottom.textContent = S.hi < S.shown.length ? (S.shown.length - S.hi) + ' more messages' : '';
    ui.bottom.hidden = S.hi >= S.shown.length;
  }

  function anchorPos(i) {
    if (i < 0) return -1;
    if (S.shownPos.has(i)) return S.shownPos.get(i);
    if (S.merged.has(i)) {
      const a = S.callAt.get(str(S.E[i].result));
      if (a !== undefined && S.shownPos.has(a)) return S.shownPos.get(a);
    }
    // Not shown under this filter: fall back to the nearest shown message before it on the path.
    const p = S.path.indexOf(i);
    for (let k = p; k >= 0; k--) if (S.shownPos.has(S.path[k])) return S.shownPos.get(S.path[k]);
    return S.shown.length ? 0 : -1;
  }

  function articleFor(i) {
    if (S.merged.has(i)) {
      const call = ui.msgs.querySelector('.st-call[data-result-idx="' + i + '"]');
      if (call) return call;
    }
    return ui.msgs.querySelector('.st-entry[data-idx="' + i + '"]');
  }

  function windowAround(a) {
    const c = a < 0 ? 0 : a;
    return [Math.max(0, c - (a < 0 ? 0 : WIN_BEFORE)), Math.min(S.shown.length, c + WIN_AFTER)];
  }

  // The highest fragment index the first screen around ``anchor`` needs (calls pull in their results).
  function lastNeeded(anchor) {
    computeShown();
    const [lo, hi] = windowAround(anchorPos(anchor));
    let need = 0;
    for (let k = lo; k < hi; k++) {
      const i = S.shown[k];
      need = Math.max(need, i);
      const calls = S.E[i].calls;
      if (Array.isArray(calls)) for (const c of calls) { const r = S.resultFor.get(str(c)); if (r !== undefined) need = Math.max(need, r); }
    }
    return need;
  }

  function renderMessages(anchor, align, highlight) {
    S.gen++;
    computeShown();
    ui.msgs.classList.toggle('st-hide-tools', S.filter === 'no-tools');
    const a = anchorPos(anchor);
    [S.lo, S.hi] = windowAround(a);
    const first = renderRange(S.lo, S.hi);
    // The first window is laid out for real so scrolling to the anchor lands exactly.
    for (const art of first.children) art.classList.add('st-eager');
    ui.msgs.replaceChildren(ui.top, first, ui.bottom);
    syncSentinels();
    S.cur = -1;
    const target = anchor >= 0 ? articleFor(anchor) : null;
    if (target && a >= 0) {
      if (highlight) {
        for (const e of ui.msgs.querySelectorAll('.st-target')) e.classList.remove('st-target');
        target.classList.add('st-target');
      }
      target.scrollIntoView({ block: align || 'start' });
      const gen = S.gen;
      requestAnimationFrame(() => {
        const r = target.getBoundingClientRect();
        const m = ui.main.getBoundingClientRect();
        if (gen === S.gen && (r.bottom < m.top || r.top > m.bottom)) target.scrollIntoView({ block: align || 'start' });
      });
      if (target.classList.contains('st-entry')) S.cur = anchor;
    } else {
      ui.main.scrollTop = 0;
    }
    fillInIdle(S.gen);
  }

  function fillInIdle(gen) {
    const step = (dl) => {
      if (gen !== S.gen) return;
      const until = performance.now() + Math.max(6, Math.min(14, dl.timeRemaining()));
      while (performance.now() < until && S.hi - S.lo < IDLE_CAP) {
        if (!extendDown(8) && !extendUp(8)) return;
      }
      if (S.hi - S.lo < IDLE_CAP && (S.lo > 0 || S.hi < S.shown.length)) idle(step);
    };
    idle(step);
  }

  function firstVisibleArticle() {
    const top = ui.main.getBoundingClientRect().top;
    for (const a of ui.msgs.children) {
      if (a.classList.contains('st-entry') && a.getBoundingClientRect().bottom > top + 4) return a;
    }
    return null;
  }

  // ---------------------------------------------------------------- navigation
  function selectLeaf(i, opts) {
    if (i < 0 || i >= S.n) return;
    const o = opts || {};
    const t0 = o.t0 || performance.now();
    setPath(i);
    const r = S.rowOf[i];
    if (r >= 0) { S.focusRow = r; scrollRowIntoView(r); }
    renderTreeRows();
    updateUrl(null);
    closeSidebarIfOverlay();
    renderWhenReady(o.anchor != null ? o.anchor : i, o.align || 'end', !!o.highlight, t0);
  }

  // While fragments still stream in, wait for the ones this screen needs (the last request wins).
  function renderWhenReady(anchor, align, highlight, t0) {
    const token = ++S.pending;
    const show = () => {
      if (token !== S.pending) return;
      renderMessages(anchor, align, highlight);
      if (t0 == null) return;
      afterPaint().then(() => {
        try { performance.measure('st-branch-switch', { start: t0, end: performance.now() }); } catch (_) { /* */ }
      });
    };
    if (S.fragsDone) show(); else S.waitFrag(lastNeeded(anchor)).then(show);
  }

  // The newest leaf under x (last children), backed up past entries the filter hides (labels, meta).
  function deepest(x) {
    const top = x;
    for (let guard = 0; S.kids[x] && S.kids[x].length && guard < S.n; guard++) x = S.kids[x][S.kids[x].length - 1];
    while (x !== top && !passFilter(x) && S.par[x] >= 0) x = S.par[x];
    return x;
  }

  function siblingBranch(d, t0) {
    const P = S.path;
    for (let k = P.length - 1; k >= 0; k--) {
      const sibs = k > 0 ? S.kids[P[k - 1]] : S.roots;
      if (!sibs || sibs.length < 2) continue;
      const pos = sibs.indexOf(P[k]);
      const next = sibs[(pos + d + sibs.length) % sibs.length];
      selectLeaf(deepest(next), { anchor: next, align: 'start', highlight: true, t0 });
      toast('Branch ' + (sibs.indexOf(next) + 1) + ' of ' + sibs.length);
      return;
    }
    toast('No other branch on this path');
  }

  function moveMessage(d) {
    const arts = () => Array.from(ui.msgs.children).filter((e) => e.classList.contains('st-entry'));
    let list = arts();
    let pos = list.findIndex((e) => Number(e.getAttribute('data-idx')) === S.cur);
    if (pos < 0) {
      const fv = firstVisibleArticle();
      pos = fv ? list.indexOf(fv) - (d > 0 ? 1 : 0) : -1;
      if (d < 0 && pos < 0) pos = 0;
    }
    let next = pos + d;
    if (next >= list.length && extendDown(STEP)) list = arts();
    if (next < 0 && S.lo > 0) { const before = S.lo; extendUp(STEP); list = arts(); next += before - S.lo; }
    if (next < 0 || next >= list.length) return;
    const el = list[next];
    for (const e of ui.msgs.querySelectorAll('.st-entry.st-cur')) e.classList.remove('st-cur');
    el.classList.add('st-cur');
    S.cur = Number(el.getAttribute('data-idx'));
    el.scrollIntoView({ block: 'start' });
    el.focus({ preventScroll: true });
  }

  function setFilter(f) {
    const fv = firstVisibleArticle();
    S.filter = f;
    refreshTree();
    const anchor = fv ? Number(fv.getAttribute('data-idx')) : -1;
    renderWhenReady(anchor, 'start', false, null);
  }

  let searchTimer = 0;
  function onSearch() {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      S.terms = ui.search.value.toLowerCase().split(/\s+/).filter(Boolean);
      refreshTree();
      if (S.terms.length && S.rows.length) { ui.tree.scrollTop = 0; S.focusRow = 0; renderTreeRows(); }
      else if (S.leaf >= 0 && S.rowOf[S.leaf] >= 0) { scrollRowIntoView(S.rowOf[S.leaf]); renderTreeRows(); }
    }, 90);
  }

  // ---------------------------------------------------------------- links
  function parseQuery() {
    const q = location.search.replace(/^\?/, '');
    const params = Object.create(null);
    let gist = null;
    q.split('&').forEach((part, k) => {
      if (!part) return;
      const eq = part.indexOf('=');
      if (eq < 0) {
        // gistpreview-style pages put the gist id first, without a name: keep it in every link.
        if (k === 0 && /^[A-Za-z0-9_./-]{1,200}$/.test(part)) gist = part;
        return;
      }
      try {
        params[decodeURIComponent(part.slice(0, eq))] = decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '));
      } catch (_) { /* malformed escape: ignore the parameter */ }
    });
    return { gist, params };
  }

  function linkFor(targetIdx) {
    const base = location.href.split(/[?#]/)[0];
    const parts = [];
    if (S.gist) parts.push(S.gist);
    if (S.leaf >= 0) parts.push('leafId=' + encodeURIComponent(str(S.E[S.leaf].id)));
    if (targetIdx != null && targetIdx >= 0) parts.push('targetId=' + encodeURIComponent(str(S.E[targetIdx].id)));
    return base + (parts.length ? '?' + parts.join('&') : '');
  }

  function updateUrl(targetIdx) {
    try { history.replaceState(history.state, '', linkFor(targetIdx)); } catch (_) { /* file:// or sandboxed */ }
  }

  async function copyText(text) {
    try {
      if (navigator.clipboard && window.isSecureContext) { await navigator.clipboard.writeText(text); return true; }
    } catch (_) { /* fall back below */ }
    const ta = h('textarea', { readonly: '', 'aria-hidden': 'true', class: 'st-offscreen' });
    ta.value = text;
    doc.body.appendChild(ta);
    ta.select();
    let ok = false;
    try { ok = doc.execCommand('copy'); } catch (_) { ok = false; }
    ta.remove();
    return ok;
  }

  async function copyLink(btn) {
    const art = btn.closest('.st-entry');
    if (!art) return;
    const idx = Number(art.getAttribute('data-idx'));
    const url = linkFor(idx);
    const ok = await copyText(url);
    btn.classList.add('st-copied');
    setTimeout(() => btn.classList.remove('st-copied'), 1500);
    toast(ok ? 'Link copied' : 'Copy failed: ' + url);
  }

  // ---------------------------------------------------------------- overlays, theme, sidebar
  let toastTimer = 0;
  function toast(msg) {
    ui.toast.textContent = msg;
    ui.toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { ui.toast.hidden = true; }, 1800);
  }

  function openZoom(img) {
    ui.zoomImg.src = img.src;
    ui.zoomImg.alt = img.alt;
    ui.zoom.hidden = false;
    ui.zoom.focus();
  }

  function closeOverlays() {
    let closed = false;
    for (const o of [ui.zoom, ui.help]) if (!o.hidden) { o.hidden = true; closed = true; }
    if (closed) ui.zoomImg.removeAttribute('src');
    return closed;
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
    store.set('st-theme', next);
    syncThemeButton();
  }

  function setSidebarWidth(px, save) {
    const w = Math.round(Math.max(180, Math.min(px, Math.max(240, window.innerWidth * 0.7))));
    ui.app.style.setProperty('--st-side-w', w + 'px');
    ui.resizer.setAttribute('aria-valuenow', String(w));
    if (save) store.set('st-sidebar-w', String(w));
    renderTreeRows();
  }

  function isOverlay() { return window.matchMedia && matchMedia('(max-width: 760px)').matches; }
  function closeSidebarIfOverlay() {
    if (isOverlay() && ui.app.classList.contains('st-side-open')) toggleSidebar(false);
  }
  function toggleSidebar(on) {
    const open = on == null ? !ui.app.classList.contains('st-side-open') : on;
    ui.app.classList.toggle('st-side-open', open);
    ui.menu.setAttribute('aria-expanded', String(open));
    if (open) requestAnimationFrame(renderTreeRows);
  }

  // ---------------------------------------------------------------- UI skeleton and events
  function buildUi() {
    ui.app = $('st-app');
    ui.side = $('st-sidebar');
    ui.main = $('st-main');
    ui.msgs = $('st-messages');
    const head = h('div', { class: 'st-side-head' });
    ui.search = h('input', { id: 'st-search', type: 'search', placeholder: 'Search  ( / )',
      'aria-label': 'Search entries', autocomplete: 'off', spellcheck: 'false' });
    const filters = h('div', { id: 'st-filters', role: 'group', 'aria-label': 'Filter entries' });
    ui.filterBtns = {};
    for (const [f, name] of FILTERS) {
      const b = h('button', { type: 'button', class: 'st-filter', 'data-filter': f, 'aria-pressed': 'false' }, name);
      b.appendChild(h('span', { class: 'st-count' }, '0'));
      ui.filterBtns[f] = b;
      filters.appendChild(b);
    }
    ui.status = h('div', { id: 'st-status', role: 'status', 'aria-live': 'polite' });
    head.append(ui.search, filters, ui.status);
    ui.tree = h('div', { id: 'st-tree', role: 'tree', 'aria-label': 'Session tree' });
    ui.treeInner = h('div', { class: 'st-tree-inner' });
    ui.tree.appendChild(ui.treeInner);
    ui.side.replaceChildren(head, ui.tree);
    ui.resizer = h('div', { id: 'st-resizer', role: 'separator', 'aria-orientation': 'vertical',
      'aria-label': 'Resize sidebar', tabindex: '0', 'aria-valuemin': '180' });
    ui.side.after(ui.resizer);

    const bar = h('div', { id: 'st-toolbar' });
    ui.menu = h('button', { type: 'button', id: 'st-menu', 'aria-label': 'Show the session tree',
      'aria-controls': 'st-sidebar', 'aria-expanded': 'false' }, '☰');
    ui.theme = h('button', { type: 'button', id: 'st-theme' });
    ui.helpBtn = h('button', { type: 'button', id: 'st-help-btn', 'aria-label': 'Keyboard shortcuts',
      title: 'Keyboard shortcuts (?)' }, '?');
    bar.append(ui.menu, ui.theme, ui.helpBtn);
    ui.main.prepend(bar);

    ui.top = h('div', { class: 'st-edge st-edge-top' });
    ui.bottom = h('div', { class: 'st-edge st-edge-bottom' });

    ui.help = h('div', { id: 'st-help', class: 'st-overlay', role: 'dialog', 'aria-modal': 'true',
      'aria-label': 'Keyboard shortcuts', tabindex: '-1' });
    const box = h('div', { class: 'st-help-box' });
    box.appendChild(h('h2', null, 'Keyboard shortcuts'));
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
      const x = S.rows[r];
      if (e.target.closest('.st-twisty') && S.nkids[x] > 1) { toggleCollapse(x); return; }
      S.focusRow = r;
      selectLeaf(x, { t0: e.timeStamp });
    });
    ui.tree.addEventListener('focus', (e) => { if (e.target === ui.tree) focusRow(S.focusRow); });
    ui.tree.addEventListener('focusin', (e) => {
      const row = e.target.closest && e.target.closest('.st-row');
      if (!row) return;
      // Roving tabindex: whichever row takes focus (mouse, script, keys) becomes the tab stop.
      S.focusRow = Number(row.getAttribute('data-row'));
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
    ui.zoom.addEventListener('click', closeOverlays);
    ui.help.addEventListener('click', (e) => { if (e.target === ui.help) closeOverlays(); });
    ui.theme.addEventListener('click', toggleTheme);
    ui.helpBtn.addEventListener('click', () => { ui.help.hidden = false; ui.help.focus(); });
    ui.menu.addEventListener('click', () => toggleSidebar());
    if (window.matchMedia) {
      const mq = matchMedia('(prefers-color-scheme: dark)');
      if (mq.addEventListener) mq.addEventListener('change', syncThemeButton);
    }
    const io = new IntersectionObserver((items) => {
      for (const it of items) {
        if (!it.isIntersecting) continue;
        if (it.target === ui.bottom) extendDown(STEP); else extendUp(STEP);
      }
    }, { root: ui.main, rootMargin: '600px 0px' });
    io.observe(ui.top);
    io.observe(ui.bottom);
    bindResizer();
    doc.addEventListener('keydown', onKey);
    window.addEventListener('resize', () => renderTreeRows());
    window.addEventListener('beforeprint', () => { while (extendDown(500)); while (extendUp(500)); });
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

  function toggleCollapse(x) {
    if (S.collapsed.has(x)) S.collapsed.delete(x); else S.collapsed.add(x);
    computeRows();
    S.focusRow = S.rowOf[x];
    renderTreeRows();
  }

  function onTreeKey(e) {
    const r = S.focusRow;
    const x = S.rows[r];
    if (x === undefined) return;
    switch (e.key) {
      case 'ArrowDown': focusRow(r + 1); break;
      case 'ArrowUp': focusRow(r - 1); break;
      case 'Home': focusRow(0); break;
      case 'End': focusRow(S.rows.length - 1); break;
      case 'PageDown': focusRow(r + Math.floor(ui.tree.clientHeight / ROW_H)); break;
      case 'PageUp': focusRow(r - Math.floor(ui.tree.clientHeight / ROW_H)); break;
      case 'ArrowRight':
        if (S.nkids[x] > 1 && S.collapsed.has(x)) { toggleCollapse(x); focusRow(S.rowOf[x]); }
        else if (S.nkids[x] > 1) focusRow(r + 1);
        break;
      case 'ArrowLeft': {
        // The ARIA parent of a row is the branch point its branch hangs from.
        const up = S.bs[x] >= 0 ? S.ep[S.bs[x]] : -1;
        if (S.nkids[x] > 1 && !S.collapsed.has(x)) { toggleCollapse(x); focusRow(S.rowOf[x]); }
        else if (up >= 0) focusRow(S.rowOf[up]);
        break;
      }
      case 'Enter': case ' ': selectLeaf(x, { t0: e.timeStamp }); focusRow(S.rowOf[x]); break;
      default: return;
    }
    e.preventDefault();
    e.stopPropagation();
  }

  function onKey(e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    const typing = t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
    if (e.key === 'Escape') {
      if (closeOverlays()) return;
      if (ui.search.value || t === ui.search) {
        ui.search.value = '';
        S.terms = [];
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
      case 'o': toggleOutputs(); break;
      case '?': if (ui.help.hidden) { ui.help.hidden = false; ui.help.focus(); } else closeOverlays(); break;
      default: return;
    }
    e.preventDefault();
  }

  function toggleThinking() {
    S.thinkingOpen = !S.thinkingOpen;
    for (const d of ui.msgs.querySelectorAll('details.st-thinking')) d.open = S.thinkingOpen;
    toast(S.thinkingOpen ? 'Thinking shown' : 'Thinking hidden');
  }

  function toggleOutputs() {
    S.outputsOpen = !S.outputsOpen;
    for (const o of ui.msgs.querySelectorAll('.st-output[data-more]')) setOutput(o, S.outputsOpen);
    toast(S.outputsOpen ? 'Tool outputs expanded' : 'Tool outputs collapsed');
  }

  // ---------------------------------------------------------------- hook for added scripts
  // What a page's extra scripts (templates/viewer/live.js on a served page) build on; an exported
  // page exposes it too but nothing calls it there.

  // Add one entry (meta as in st-data, its fragment, images to merge) to the index; nothing shown changes.
  function addEntry(meta, html, images) {
    const i = S.n++;
    S.E.push(meta);
    S.frags.push(str(html));
    S.ids.set(str(meta.id), i);
    addToIndex(i);
    linkChild(i);
    S.sub[i] = 1;
    for (let j = S.par[i], guard = 0; j >= 0 && guard < S.n; j = S.par[j], guard++) S.sub[j]++;
    if (images && typeof images === 'object') for (const k of Object.keys(images)) S.images[k] = images[k];
    return i;
  }

  // If entry i continues the current leaf, move the leaf to it and show it in place: a result
  // fills its call; a message is added at the bottom (followed if the reader was at the bottom).
  function followEntry(i) {
    if (!(S.par[i] >= 0 && S.par[i] === S.leaf)) return false;
    const atEnd = S.hi >= S.shown.length;
    setPath(i);
    computeShown();
    if (S.merged.has(i)) {
      const call = ui.msgs.querySelector('.st-call[data-call-id="' + CSS.escape(str(S.E[i].result)) + '"]');
      if (call) fillCall(call, i);
    } else if (atEnd && S.shownPos.has(i)) {
      const nearBottom = ui.main.scrollHeight - ui.main.scrollTop - ui.main.clientHeight < 80;
      extendDown(S.shown.length - S.hi);
      if (nearBottom) ui.main.scrollTop = ui.main.scrollHeight;
    }
    syncSentinels();
    return true;
  }

  // ---------------------------------------------------------------- boot
  // Fragments arrive in file order while the gzip stream inflates: the first screen needs only a few.
  function startFrags(v) {
    S.frags = [];
    S.fragsDone = false;
    const waiters = [];
    const notify = () => {
      for (let k = waiters.length - 1; k >= 0; k--) {
        if (S.fragsDone || S.frags.length > waiters[k][0]) { waiters[k][1](); waiters.splice(k, 1); }
      }
    };
    S.waitFrag = (i) => (S.fragsDone || S.frags.length > i ? Promise.resolve() : new Promise((r) => waiters.push([i, r])));
    return (async () => {
      try {
        if (Array.isArray(v)) S.frags = v.map(str);
        else if (typeof v === 'string' && v.startsWith('gz:')) await inflateFrags(v.slice(3), notify);
      } catch (err) { fail(String(err && err.message)); }
      while (S.frags.length < S.n) S.frags.push('');
      mark('st-frags-done');
      S.fragsDone = true;
      notify();
    })();
  }

  async function inflateFrags(b64, notify) {
    if (typeof DecompressionStream !== 'function') throw new Error('this browser cannot decompress the page (DecompressionStream)');
    let bytes;
    if (typeof Uint8Array.fromBase64 === 'function') bytes = Uint8Array.fromBase64(b64);
    else {
      const bin = atob(b64);
      bytes = new Uint8Array(bin.length);
      for (let k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
    }
    mark('st-frags-bytes');
    // Feed the inflater small slices straight from memory (a Blob would take a trip through the
    // browser's blob store) so the first fragments come out at once.
    let off = 0;
    const source = new ReadableStream({
      pull(ctrl) {
        if (off >= bytes.length) { ctrl.close(); return; }
        ctrl.enqueue(bytes.subarray(off, off + 32768));
        off += 32768;
      },
    });
    const reader = source.pipeThrough(new DecompressionStream('gzip')).pipeThrough(new TextDecoderStream()).getReader();
    // An incremental reader of the JSON array of strings: each element is cut at its closing quote
    // (a quote preceded by an even number of backslashes) and parsed on its own.
    let buf = '';
    let pos = 0;
    let scan = 0;
    let opened = false;
    let slice = performance.now();
    for (;;) {
      // Stream reads resolve as microtasks; yield now and then so the page paints and stays responsive.
      if (performance.now() - slice > 12) { await new Promise((r) => setTimeout(r, 0)); slice = performance.now(); }
      const { value, done } = await reader.read();
      if (done) break;
      buf = buf.slice(pos) + value;
      scan = Math.max(0, scan - pos);
      pos = 0;
      for (;;) {
        while (pos < buf.length && (buf[pos] === ',' || buf[pos] === ' ' || buf[pos] === '\n' || buf[pos] === '\r' || buf[pos] === '\t')) pos++;
        if (pos >= buf.length) break;
        const c = buf[pos];
        if (!opened) { if (c !== '[') throw new Error('bad fragment data'); opened = true; pos++; continue; }
        if (c === ']') { notify(); return; }
        if (c !== '"') throw new Error('bad fragment data');
        let q = Math.max(scan, pos + 1);
        let end = -1;
        for (;;) {
          q = buf.indexOf('"', q);
          if (q < 0) break;
          let bs = 0;
          while (buf.charCodeAt(q - 1 - bs) === 92) bs++;
          if (bs % 2 === 0) { end = q; break; }
          q++;
        }
        if (end < 0) { scan = buf.length; break; }
        S.frags.push(JSON.parse(buf.slice(pos, end + 1)));
        pos = end + 1;
        scan = pos;
      }
      notify();
    }
  }

  function fail(msg) {
    const box = h('div', { class: 'st-fatal', role: 'alert' }, 'The viewer could not start: ' + msg);
    ($('st-messages') || doc.body).appendChild(box);
  }

  async function boot() {
    mark('st-boot');
    const node = $('st-data');
    let data;
    try { data = JSON.parse(node ? node.textContent : 'null'); } catch (_) { data = null; }
    if (!data || typeof data !== 'object') { fail('missing or invalid session data'); return false; }
    mark('st-data-parsed');
    S.E = Array.isArray(data.entries) ? data.entries : [];
    S.n = S.E.length;
    if (data.images && typeof data.images === 'object') S.images = Object.assign(Object.create(null), data.images);
    buildUi();
    const savedTheme = store.get('st-theme');
    if (savedTheme === 'light' || savedTheme === 'dark') root.setAttribute('data-theme', savedTheme);
    syncThemeButton();
    const w = Number(store.get('st-sidebar-w'));
    if (w > 0) setSidebarWidth(w, false);
    const fragsDone = startFrags(data.frags);
    await yieldTask();
    await buildIndex();
    mark('st-index-built');
    const q = parseQuery();
    S.gist = q.gist;
    let leaf = S.ids.has(str(q.params.leafId)) ? S.ids.get(q.params.leafId) : S.ids.get(str(data.leafId));
    if (leaf === undefined) leaf = S.n - 1;
    const target = S.ids.has(str(q.params.targetId)) ? S.ids.get(q.params.targetId) : -1;
    if (target >= 0 && !pathTo(leaf).includes(target)) leaf = target;
    setPath(leaf);
    await yieldTask();
    if (target >= 0) {
      computeShown();
      if (!S.shownPos.has(target) && !S.merged.has(target)) S.filter = 'all';
    }
    // Messages of the active path first (what the reader came for), then the tree.
    await S.waitFrag(lastNeeded(target));
    renderMessages(target, 'center', target >= 0);
    mark('st-path-visible');
    await afterPaint();
    mark('st-path-painted');
    bindEvents();
    refreshTree();
    if (S.leaf >= 0 && S.rowOf[S.leaf] >= 0) scrollRowIntoView(S.rowOf[S.leaf]);
    renderTreeRows();
    mark('st-tree-ready');
    await fragsDone;
    S.text = [];
    fillInIdle(S.gen);
    root.setAttribute('data-st-ready', '1');
    warmSearch();
    return true;
  }

  const api = {
    hook: { addEntry, followEntry, refreshTree },
    selectLeaf: (id) => { const i = S.ids.get(str(id)); if (i !== undefined) selectLeaf(i); },
    get leafId() { return S.leaf >= 0 ? str(S.E[S.leaf].id) : null; },
    get filter() { return S.filter; },
    link: (id) => linkFor(S.ids.has(str(id)) ? S.ids.get(str(id)) : null),
  };
  api.ready = new Promise((resolve) => {
    const run = () => boot().catch((err) => { fail(String(err && err.message)); return false; }).then(resolve);
    // Normally the script sits after the content; if not, wait for it (document.write pages too).
    if ($('st-app') && $('st-data')) run(); else doc.addEventListener('DOMContentLoaded', run, { once: true });
  });
  window.sessiontree = api;
})();
