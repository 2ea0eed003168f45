/* Messages (DOM): the active path's messages, rendered in a window around an anchor and extended
 * in idle time or on scroll; tool results fill their calls; images, thinking and long outputs. */

// The Focused view shows each typed prompt and its turn's last reply only, whatever the filter.
function computeShown() {
  let passes = entryIndex.passesFilter;
  if (state.focused) {
    const keep = new Set([...outline.focused(state.outline)].map((i) => state.index.entries[i]));
    passes = (meta) => keep.has(meta);
  }
  state.view = shownMessages.computeShown(state.index, state.path, state.filter, passes);
}

const SAFE_IMG = /^data:image\/(png|jpeg|jpg|gif|webp|bmp|avif|svg\+xml|x-icon);base64,/i;
// An image served by URL (PageOptions.image_prefix): a path ending in <sha256>.<ext>, no scheme.
const IMG_URL = /^(?:\.{0,2}\/)?(?:[A-Za-z0-9._~-]+\/)*[0-9a-f]{64}\.(png|jpg|gif|webp)$/;
function imageSrc(sha) {
  const u = state.images[sha];
  if (typeof u !== 'string') return '';
  return SAFE_IMG.test(u.slice(0, 40)) || IMG_URL.test(u) ? u : '';
}

function parseFrag(i) {
  const tpl = doc.createElement('template');
  tpl.innerHTML = state.frags ? str(state.frags[i]) : '';
  return tpl.content.firstElementChild;
}

function buildArticle(i) {
  let art = parseFrag(i);
  if (!art || !art.classList.contains('st-entry')) {
    art = h('article', { class: 'st-entry st-unknown' });
    art.appendChild(h('pre', null, str(state.frags && state.frags[i])));
  }
  art.setAttribute('data-idx', String(i));
  art.tabIndex = -1;
  for (const call of art.querySelectorAll('.st-call[data-call-id]')) {
    const result = state.view.resultFor.get(call.getAttribute('data-call-id'));
    if (result !== undefined) fillCall(call, result);
  }
  prepare(art);
  decorateArticle(art, i);
  return art;
}

function fillCall(call, resultIndex) {
  const frag = parseFrag(resultIndex);
  const res = frag && (frag.matches('.st-result') ? frag : frag.querySelector('.st-result'));
  const slot = call.querySelector('.st-call-result');
  if (res && slot) { slot.replaceChildren(res); prepare(res); }
  showOutcome(call, res);
  call.setAttribute('data-status', entries()[resultIndex].error ? 'error' : 'success');
  call.setAttribute('data-result-idx', String(resultIndex));
}

function prepare(scope) {
  for (const img of scope.querySelectorAll('img.st-img[data-img]')) {
    const src = imageSrc(img.getAttribute('data-img'));
    if (src) makeZoomable(img, src); else img.classList.add('st-img-missing');
  }
  // Code, outputs and tables scroll inside their box (max-height, wide rows): a tab stop lets the
  // keyboard scroll them as the mouse wheel does.
  for (const box of scope.querySelectorAll('pre:not(.st-gutter), table')) box.tabIndex = 0;
  if (state.thinkingOpen) for (const d of scope.querySelectorAll('details.st-thinking')) d.open = true;
  for (const o of scope.querySelectorAll('.st-output[data-more]')) setOutput(o, state.outputsOpen);
  prepareReading(scope);
}

// Zooming is a click: the keyboard gets the same through a focusable button (Enter or Space).
function makeZoomable(img, src) {
  img.src = src;
  img.tabIndex = 0;
  img.setAttribute('role', 'button');
  img.setAttribute('aria-haspopup', 'dialog');
  if (!img.alt) img.setAttribute('aria-label', 'Zoom image');
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

function renderRange(start, end, after) {
  const frag = doc.createDocumentFragment();
  for (let k = start; k < end; k++) frag.appendChild(buildArticle(state.view.shown[k]));
  foldRuns(frag, after);
  return frag;
}

// ---- runs of tool-only messages: one "N tool calls" row until opened

// How many tool calls an assistant message makes when it makes nothing else (no text, no
// thinking); 0 otherwise.
function toolOnlyCalls(art) {
  if (!art.classList.contains('st-assistant')) return 0;
  const body = art.querySelector(':scope > .st-body');
  if (!body || body.querySelector(':scope > .st-text, :scope > .st-thinking')) return 0;
  return body.querySelectorAll(':scope > .st-call').length;
}

let runCount = 0;
// Two or more tool-only messages in a row fold under one button; `after` (the message a render
// adds below) carries its run on into the new messages.
function foldRuns(scope, after) {
  if (state.filter === 'no-tools') return;
  const runs = [];
  let run = [];
  const going = after && after.classList.contains('st-toolonly') && after.getAttribute('data-run');
  const head = going && ui.msgs.querySelector('.st-run-head[data-run="' + going + '"]');
  if (head) {
    for (const el of Array.from(scope.children)) {
      if (!el.classList.contains('st-toolonly')) break;
      joinRun(head, el);
    }
  }
  for (const el of Array.from(scope.children)) {
    if (el.classList.contains('st-toolonly') && !el.hasAttribute('data-run')) { run.push(el); continue; }
    if (run.length > 1) runs.push(run);
    run = [];
  }
  if (run.length > 1) runs.push(run);
  for (const members of runs) {
    const id = 'st-run-' + (++runCount);
    const row = h('button', { type: 'button', class: 'st-run-head', 'aria-expanded': 'false', 'data-run': id });
    row.addEventListener('click', () => setRun(row, row.getAttribute('aria-expanded') !== 'true'));
    scope.insertBefore(row, members[0]);
    for (const art of members) joinRun(row, art);
  }
}

// Put a tool-only message in a run (folded unless the run is open) and count it on its row.
function joinRun(row, art) {
  const n = Number(art.getAttribute('data-calls')) || 0;
  art.setAttribute('data-run', row.getAttribute('data-run'));
  art.classList.toggle('st-folded', row.getAttribute('aria-expanded') !== 'true');
  const count = (key, add) => { const v = (Number(row.getAttribute(key)) || 0) + add; row.setAttribute(key, String(v)); return v; };
  const calls = count('data-calls', n);
  const messages = count('data-messages', 1);
  const parallel = count('data-parallel', n > 1 ? 1 : 0);
  row.textContent = calls + ' tool calls in ' + messages + ' messages' + (parallel ? ' · ' + parallel + ' with parallel calls' : '');
}

function setRun(head, open) {
  head.setAttribute('aria-expanded', String(open));
  for (const art of ui.msgs.querySelectorAll('.st-entry[data-run="' + head.getAttribute('data-run') + '"]')) {
    art.classList.toggle('st-folded', !open);
  }
}

// Open the run an element (an entry, or a call in one) is folded in, so it can be shown.
function unfoldFor(el) {
  const art = el && el.closest('.st-entry.st-folded');
  const head = art && ui.msgs.querySelector('.st-run-head[data-run="' + art.getAttribute('data-run') + '"]');
  if (head) setRun(head, true);
}

function extendDown(count) {
  if (state.windowEnd >= state.view.shown.length || !state.fragsDone) return false;
  const end = Math.min(state.view.shown.length, state.windowEnd + count);
  ui.msgs.insertBefore(renderRange(state.windowEnd, end, ui.bottom.previousElementSibling), ui.bottom);
  state.windowEnd = end;
  syncSentinels();
  return true;
}

function extendUp(count) {
  if (state.windowStart <= 0 || !state.fragsDone) return false;
  const start = Math.max(0, state.windowStart - count);
  const ref = ui.top.nextElementSibling;
  const before = ref ? ref.getBoundingClientRect().top : 0;
  ui.msgs.insertBefore(renderRange(start, state.windowStart), ref);
  state.windowStart = start;
  // Keep what the reader looks at still while earlier messages arrive above it.
  if (ref) ui.main.scrollTop += ref.getBoundingClientRect().top - before;
  syncSentinels();
  return true;
}

function syncSentinels() {
  const total = state.view.shown.length;
  ui.top.textContent = state.windowStart > 0 ? state.windowStart + ' earlier messages' : '';
  ui.top.hidden = state.windowStart <= 0;
  ui.bottom.textContent = state.windowEnd < total ? (total - state.windowEnd) + ' more messages' : '';
  ui.bottom.hidden = state.windowEnd >= total;
}

function anchorPos(i) {
  return shownMessages.anchorPos(state.view, state.index, state.path, i);
}

function windowAround(a) {
  return shownMessages.windowAround(a, state.view.shown.length, WINDOW_BEFORE, WINDOW_AFTER);
}

function articleFor(i) {
  if (state.view.merged.has(i)) {
    const call = ui.msgs.querySelector('.st-call[data-result-idx="' + i + '"]');
    if (call) return call;
  }
  return ui.msgs.querySelector('.st-entry[data-idx="' + i + '"]');
}

// The highest fragment index the first screen around `anchor` needs.
function lastNeeded(anchor) {
  computeShown();
  const [start, end] = windowAround(anchorPos(anchor));
  return shownMessages.lastNeeded(state.index, state.view, start, end);
}

function renderMessages(anchor, align, highlight) {
  state.generation++;
  computeShown();
  ui.msgs.classList.toggle('st-hide-tools', state.filter === 'no-tools');
  const a = anchorPos(anchor);
  [state.windowStart, state.windowEnd] = windowAround(a);
  const first = renderRange(state.windowStart, state.windowEnd);
  // The first window is laid out for real so scrolling to the anchor lands exactly.
  for (const art of first.children) art.classList.add('st-eager');
  ui.msgs.replaceChildren(ui.top, first, ui.bottom);
  syncSentinels();
  state.current = -1;
  const target = anchor >= 0 ? articleFor(anchor) : null;
  if (target && a >= 0) {
    if (highlight) {
      for (const e of ui.msgs.querySelectorAll('.st-target')) e.classList.remove('st-target');
      target.classList.add('st-target');
    }
    // A tool result shown in its call: the call opens to show it.
    if (target.classList.contains('st-call')) setCall(target, true);
    unfoldFor(target);
    target.scrollIntoView({ block: align || 'start' });
    const generation = state.generation;
    requestAnimationFrame(() => {
      const r = target.getBoundingClientRect();
      const m = ui.main.getBoundingClientRect();
      if (generation === state.generation && (r.bottom < m.top || r.top > m.bottom)) target.scrollIntoView({ block: align || 'start' });
    });
    if (target.classList.contains('st-entry')) state.current = anchor;
  } else {
    ui.main.scrollTop = 0;
  }
  fillInIdle(state.generation);
  requestAnimationFrame(syncReading);
}

function fillInIdle(generation) {
  const step = (deadline) => {
    if (generation !== state.generation) return;
    const until = performance.now() + Math.max(6, Math.min(14, deadline.timeRemaining()));
    while (performance.now() < until && state.windowEnd - state.windowStart < IDLE_CAP) {
      if (!extendDown(8) && !extendUp(8)) return;
    }
    const partial = state.windowStart > 0 || state.windowEnd < state.view.shown.length;
    if (state.windowEnd - state.windowStart < IDLE_CAP && partial) idle(step);
  };
  idle(step);
}

function firstVisibleArticle() {
  const top = ui.main.getBoundingClientRect().top;
  for (const a of ui.msgs.children) {
    // What shows under the toolbar's band, where an entry brought to the top sits.
    if (a.classList.contains('st-entry') && a.getBoundingClientRect().bottom > top + TOOLBAR_SPACE + 4) return a;
  }
  return null;
}

// If entry i continues the current leaf, move the leaf to it and show it in place: a result
// fills its call; a message is added at the bottom (followed if the reader was at the bottom).
function followEntry(i) {
  const parent = state.index.parent[i];
  if (!(parent >= 0 && parent === state.leaf)) return false;
  const atEnd = state.windowEnd >= state.view.shown.length;
  setPath(i);
  computeShown();
  if (state.view.merged.has(i)) {
    const call = ui.msgs.querySelector('.st-call[data-call-id="' + CSS.escape(str(entries()[i].result)) + '"]');
    if (call) fillCall(call, i);
  } else if (atEnd && state.view.shownPos.has(i)) {
    const nearBottom = ui.main.scrollHeight - ui.main.scrollTop - ui.main.clientHeight < 80;
    extendDown(state.view.shown.length - state.windowEnd);
    if (nearBottom) ui.main.scrollTop = ui.main.scrollHeight;
  }
  syncSentinels();
  return true;
}

function toggleThinking() {
  state.thinkingOpen = !state.thinkingOpen;
  for (const d of ui.msgs.querySelectorAll('details.st-thinking')) d.open = state.thinkingOpen;
  toast(state.thinkingOpen ? 'Thinking shown' : 'Thinking hidden');
}
