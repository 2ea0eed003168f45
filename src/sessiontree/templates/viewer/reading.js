/* Reading (DOM): the prompt outline and moving by prompt (J / K), the tree and the outline
 * following the reading position, local times, copy buttons, compact tool calls. The data work
 * is in outline.js and local-time.js. */

const OUTLINE_TITLE = 80;      // characters of a prompt's first line in the outline

// The active path's prompts (after every leaf change) and the durations of their turns.
function computeOutline() {
  state.outline = outline.build(entries(), state.path, OUTLINE_TITLE);
  state.turnEnds = outline.turnEnds(state.outline);
  if (ui.outlineList) renderOutline();
}

function renderOutline() {
  const items = state.outline;
  ui.outlineCount.textContent = items.length ? '(' + items.length + ')' : '';
  ui.outlineEmpty.hidden = items.length > 0;
  const frag = doc.createDocumentFragment();
  for (const it of items) {
    const li = h('li');
    const a = h('a', { class: 'st-prompt-link', href: linkFor(it.idx), 'data-idx': String(it.idx) });
    a.appendChild(h('span', { class: 'st-prompt-n' }, it.n + '.'));
    a.appendChild(h('span', { class: 'st-prompt-title' }, it.title || '(prompt)'));
    if (it.tools) a.appendChild(h('span', { class: 'st-prompt-tools' }, it.tools));
    li.appendChild(a);
    frag.appendChild(li);
  }
  ui.outlineList.replaceChildren(frag);
  state.readingItem = -2;
  syncOutlineCurrent();
}

// The position in the shown messages that stands for entry i (shown-messages' rule).
function pathPos(i) { return anchorPos(i); }

// A linked target (?targetId=) is the reader's place while it is on screen, though centred.
function pinnedInView() {
  if (state.pinned < 0) return null;
  const art = ui.msgs.querySelector('.st-entry[data-idx="' + state.pinned + '"]');
  const m = ui.main.getBoundingClientRect();
  const r = art ? art.getBoundingClientRect() : null;
  if (r && r.bottom > m.top && r.top < m.bottom) return art;
  state.pinned = -1;
  return null;
}

// The entry at the top of the view: what the tree and the outline show as the reader's place.
function syncReading() {
  const art = pinnedInView() || firstVisibleArticle();
  const i = art ? Number(art.getAttribute('data-idx')) : -1;
  if (i === state.reading) return;
  state.reading = i;
  for (const r of ui.treeInner.querySelectorAll('.st-row.st-reading')) { r.classList.remove('st-reading'); r.removeAttribute('aria-current'); }
  const row = i >= 0 ? state.layout.rowOf[i] : -1;
  // The tree scrolls to the row; focus stays where it is (a reader in the tree keeps their place).
  if (row >= 0 && !ui.tree.contains(doc.activeElement)) { scrollRowIntoView(row); renderTreeRows(); }
  const el = row >= 0 ? rowElement(row) : null;
  if (el) { el.classList.add('st-reading'); el.setAttribute('aria-current', 'location'); }
  syncOutlineCurrent();
  if (state.urlFollows) followInUrl();
}

// The address names the reader's place (?targetId=, none at the first entry) once they stop
// moving, so a reload or a copied address opens where they were; a chosen leaf stays in it.
const URL_SETTLE_MS = 300;
function followInUrl() {
  clearTimeout(state.urlTimer);
  state.urlTimer = setTimeout(() => {
    const first = state.view.shown.length ? state.view.shown[0] : -1;
    const leafId = linkQuery.parseQuery(location.search).params.leafId;
    updateUrl(state.reading !== first ? state.reading : null, leafId == null ? null : str(leafId));
  }, URL_SETTLE_MS);
}

function syncOutlineCurrent() {
  if (!ui.outlineList) return;
  const pos = state.reading >= 0 ? pathPos(state.reading) : -1;
  const k = outline.itemAt(state.outline, pathPos, pos);
  if (k === state.readingItem) return;
  state.readingItem = k;
  const links = ui.outlineList.querySelectorAll('.st-prompt-link');
  for (const a of links) a.removeAttribute('aria-current');
  const a = k >= 0 ? links[k] : null;
  const box = ui.outline;
  // Above the first prompt (a session's opening notes): the outline's start, wherever it was left.
  if (!a) { if (k < 0) box.scrollTop = 0; return; }
  a.setAttribute('aria-current', 'location');
  const top = a.offsetTop - box.offsetTop;
  if (top < box.scrollTop || top + a.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = top - box.clientHeight / 3;
}

// Scroll entry i of the shown path to the top of the view and focus it (rendering its window first).
function showAtTop(i) {
  let art = ui.msgs.querySelector('.st-entry[data-idx="' + i + '"]');
  if (!art) { renderMessages(i, 'start', false); art = ui.msgs.querySelector('.st-entry[data-idx="' + i + '"]'); }
  if (!art) return false;
  for (const e of ui.msgs.querySelectorAll('.st-entry.st-cur')) e.classList.remove('st-cur');
  art.classList.add('st-cur');
  state.current = i;
  unfoldFor(art);
  art.scrollIntoView({ block: 'start' });
  art.focus({ preventScroll: true });
  syncReading();
  return true;
}

function goPrompt(d) {
  const items = state.outline.filter((it) => state.view.shownPos.has(it.idx));
  if (!items.length) { toast('No typed prompts on this path'); return; }
  const top = state.current >= 0 && state.view.shownPos.has(state.current) ? state.current : state.reading;
  const pos = top >= 0 ? pathPos(top) : -1;
  const k = outline.step(items, pathPos, pos, d);
  if (k < 0) { toast(d > 0 ? 'No later prompt' : 'No earlier prompt'); return; }
  if (showAtTop(items[k].idx)) toast('Prompt ' + items[k].n + ' of ' + state.outline.length);
}

// ---- copy: code blocks, tool inputs and outputs, messages, the resume command

function sourceText(tpl) { return tpl.content ? tpl.content.textContent : tpl.textContent; }

function copyButton(label, what) {
  return h('button', { type: 'button', class: 'st-copy', 'data-copy-what': what, 'aria-label': label, title: label }, 'Copy');
}

function addCopyButtons(scope) {
  for (const pre of scope.querySelectorAll('pre')) {
    if (pre.classList.contains('st-gutter') || pre.hasAttribute('data-st-copy')) continue;
    pre.setAttribute('data-st-copy', '');
    const out = pre.closest('.st-output');
    const inResult = pre.closest('.st-result');
    const label = inResult ? 'Copy tool output' : pre.closest('.st-call') ? 'Copy tool input' : 'Copy code';
    const box = out && !out.querySelector(':scope > .st-copy') ? out : null;
    const b = copyButton(label, 'pre');
    if (box) { box.appendChild(b); continue; }
    if (out) continue;
    const wrap = h('div', { class: 'st-codebox' });
    pre.replaceWith(wrap);
    wrap.append(pre, b);
  }
  for (const call of scope.querySelectorAll('.st-call')) {
    const src = call.querySelector(':scope > .st-call-body > template.st-src');
    const head = call.querySelector(':scope > .st-call-head');
    if (!src || !head || call.querySelector(':scope > .st-copy-input')) continue;
    const b = copyButton('Copy tool input', 'input');
    b.classList.add('st-copy-input');
    head.after(b);
  }
}

function addMessageCopy(art) {
  const head = art.querySelector(':scope > .st-head');
  if (!head || head.querySelector('.st-copy-msg')) return;
  if (!messageSources(art).length) return;
  const b = copyButton('Copy message text (markdown)', 'message');
  b.classList.add('st-copy-msg');
  head.appendChild(b);
}

// A message's own text blocks, not those inside its tool calls.
function messageSources(art) {
  return Array.from(art.querySelectorAll('.st-text > template.st-src')).filter((t) => !t.closest('.st-call'));
}

function textToCopy(button) {
  const what = button.getAttribute('data-copy-what');
  if (button.hasAttribute('data-copy')) return button.getAttribute('data-copy');
  if (what === 'message') return messageSources(button.closest('.st-entry')).map(sourceText).join('\n\n');
  if (what === 'input') {
    const call = button.closest('.st-call');
    const src = call && call.querySelector(':scope > .st-call-body > template.st-src');
    return src ? sourceText(src) : '';
  }
  const box = button.parentElement;
  const pre = box && box.querySelector(':scope > pre:not(.st-gutter), :scope > .st-lines > pre:not(.st-gutter)');
  return pre ? pre.textContent : '';
}

async function copyFrom(button) {
  const text = textToCopy(button);
  const ok = await copyText(text);
  button.classList.toggle('st-copied', ok);
  if (!button.hasAttribute('data-label')) button.setAttribute('data-label', button.textContent);
  button.textContent = ok ? 'Copied' : 'Copy failed';
  setTimeout(() => { button.classList.remove('st-copied'); button.textContent = button.getAttribute('data-label'); }, 1500);
  toast(ok ? 'Copied' : 'Copy failed');
}

// ---- tool calls: one line each until opened (a click, Enter on the head, `o`, expand all)

function setCall(call, open) {
  call.classList.toggle('st-open', open);
  const head = call.querySelector(':scope > .st-call-head');
  if (head) head.setAttribute('aria-expanded', String(open));
}

function setAllCalls(open) {
  state.callsOpen = open;
  for (const c of ui.msgs.querySelectorAll('.st-call')) setCall(c, open);
  state.outputsOpen = open;
  for (const o of ui.msgs.querySelectorAll('.st-output[data-more]')) setOutput(o, open);
  toast(open ? 'Tool calls expanded' : 'Tool calls collapsed');
}

// The head's outcome ("+5 −4", "exit 1", "120 lines"), from the result that filled the call.
function showOutcome(call, res) {
  const head = call.querySelector(':scope > .st-call-head');
  if (!head) return;
  let span = head.querySelector('.st-call-outcome');
  const text = res ? str(res.getAttribute('data-outcome')) : '';
  if (!text) { if (span) span.remove(); return; }
  if (!span) { span = h('span', { class: 'st-call-outcome' }); head.appendChild(span); }
  span.textContent = text;
}

function prepareReading(scope) {
  localTime.localize(scope);
  addCopyButtons(scope);
  for (const c of scope.querySelectorAll('.st-call')) setCall(c, state.callsOpen);
}

function decorateArticle(art, i) {
  addMessageCopy(art);
  const calls = toolOnlyCalls(art);
  if (calls) {
    art.classList.add('st-toolonly');
    art.setAttribute('data-calls', String(calls));
    const top = art.querySelector(':scope > .st-head');
    if (calls > 1 && top) top.appendChild(h('span', { class: 'st-parallel', title: 'Calls made at once, in one message' }, calls + ' parallel calls'));
  }
  const turn = state.turnEnds.get(i);
  const head = art.querySelector(':scope > .st-head');
  if (turn && head && !head.querySelector('.st-turn-time')) {
    const ts = head.querySelector('.st-ts');
    const span = h('span', { class: 'st-turn-time', title: 'This turn: from its prompt to its last entry, and the tool calls made in it' }, turn);
    if (ts) ts.after(' ', span); else head.appendChild(span);
  }
}

function buildOutlineUi() {
  ui.outline = h('nav', { id: 'st-outline', 'aria-labelledby': 'st-outline-title' });
  const title = h('h2', { id: 'st-outline-title', class: 'st-outline-title' }, 'Prompts');
  ui.outlineCount = h('span', { class: 'st-outline-count' });
  title.append(' ', ui.outlineCount);
  ui.outlineList = h('ol', { class: 'st-outline-list' });
  ui.outlineEmpty = h('p', { class: 'st-outline-empty' }, 'No typed prompts on this path');
  ui.outline.append(title, ui.outlineList, ui.outlineEmpty);
  return ui.outline;
}

function bindReading() {
  let raf = 0;
  const soon = () => { if (!raf) raf = requestAnimationFrame(() => { raf = 0; syncReading(); }); };
  ui.main.addEventListener('scroll', soon, { passive: true });
  // Entries off screen are laid out only when they come into view (content-visibility), so the
  // entry at the top can change after the scroll that brought it: follow the messages' size too.
  if (typeof ResizeObserver === 'function') new ResizeObserver(soon).observe(ui.msgs);
  ui.outline.addEventListener('click', (e) => {
    const a = e.target.closest('.st-prompt-link');
    if (!a || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    closeSidebarIfOverlay();
    showAtTop(Number(a.getAttribute('data-idx')));
  });
  ui.main.addEventListener('click', (e) => {
    const copy = e.target.closest('.st-copy');
    if (copy) { copyFrom(copy); return; }
    const head = e.target.closest('.st-call-head');
    if (head) { const call = head.closest('.st-call'); setCall(call, !call.classList.contains('st-open')); }
  });
}
