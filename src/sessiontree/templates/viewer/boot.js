/* Boot (DOM): read st-data, stream the fragments in, build the index, show the active path first,
 * then the tree; expose window.sessiontree (and the hook extra scripts such as live.js build on). */

// Fragments arrive in file order while the gzip stream inflates: the first screen needs only a few.
function startFrags(value) {
  state.frags = [];
  state.fragsDone = false;
  const waiters = [];
  const notify = () => {
    for (let k = waiters.length - 1; k >= 0; k--) {
      if (state.fragsDone || state.frags.length > waiters[k][0]) { waiters[k][1](); waiters.splice(k, 1); }
    }
  };
  state.waitFrag = (i) => (state.fragsDone || state.frags.length > i
    ? Promise.resolve() : new Promise((r) => waiters.push([i, r])));
  return (async () => {
    try {
      if (Array.isArray(value)) state.frags = value.map(str);
      else if (typeof value === 'string' && value.startsWith('gz:')) await inflateFrags(value.slice(3), notify);
    } catch (err) { fail(String(err && err.message)); }
    while (state.frags.length < state.index.count) state.frags.push('');
    mark('st-frags-done');
    state.fragsDone = true;
    notify();
  })();
}

function decodeBase64(b64) {
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(b64);
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
  return bytes;
}

async function inflateFrags(b64, notify) {
  if (typeof DecompressionStream !== 'function') throw new Error('this browser cannot decompress the page (DecompressionStream)');
  const bytes = decodeBase64(b64);
  mark('st-frags-bytes');
  // Feed the inflater small slices straight from memory (a Blob would take a trip through the
  // browser's blob store) so the first fragments come out at once.
  let offset = 0;
  const source = new ReadableStream({
    pull(ctrl) {
      if (offset >= bytes.length) { ctrl.close(); return; }
      ctrl.enqueue(bytes.subarray(offset, offset + 32768));
      offset += 32768;
    },
  });
  const reader = source.pipeThrough(new DecompressionStream('gzip')).pipeThrough(new TextDecoderStream()).getReader();
  const parser = fragmentStream.createParser();
  let slice = performance.now();
  for (;;) {
    // Stream reads resolve as microtasks; yield now and then so the page paints and stays responsive.
    if (performance.now() - slice > 12) { await new Promise((r) => setTimeout(r, 0)); slice = performance.now(); }
    const { value, done } = await reader.read();
    if (done) break;
    for (const frag of parser.push(value)) state.frags.push(frag);
    notify();
    if (parser.done) return;
  }
}

function fail(msg) {
  const box = h('div', { class: 'st-fatal', role: 'alert' }, 'The viewer could not start: ' + msg);
  ($('st-messages') || doc.body).appendChild(box);
}

// Several short passes with yields between them: a 100,000-entry page never blocks for long.
async function buildIndex() {
  entryIndex.indexIds(state.index);
  await yieldTask();
  entryIndex.linkParents(state.index);
  await yieldTask();
  entryIndex.linkChildren(state.index);
}

async function boot() {
  mark('st-boot');
  const node = $('st-data');
  let data;
  try { data = JSON.parse(node ? node.textContent : 'null'); } catch (_) { data = null; }
  if (!data || typeof data !== 'object') { fail('missing or invalid session data'); return false; }
  mark('st-data-parsed');
  // A server sends its first header before the statistics, and the whole header after the data.
  const lateHeader = $('st-header-late');
  if (lateHeader && $('st-header')) $('st-header').replaceChildren(lateHeader.content);
  state.index = entryIndex.create(data.entries);
  if (data.images && typeof data.images === 'object') state.images = Object.assign(Object.create(null), data.images);
  buildUi();
  localTime.localize($('st-header') || doc.body);
  const savedTheme = storage.get('st-theme');
  if (savedTheme === 'light' || savedTheme === 'dark') root.setAttribute('data-theme', savedTheme);
  syncThemeButton();
  const width = Number(storage.get('st-sidebar-w'));
  if (width > 0) setSidebarWidth(width, false);
  const fragsDone = startFrags(data.frags);
  await yieldTask();
  await buildIndex();
  mark('st-index-built');
  const ids = state.index.ids;
  const query = linkQuery.parseQuery(location.search);
  state.gist = query.gist;
  let leaf = ids.has(str(query.params.leafId)) ? ids.get(query.params.leafId) : ids.get(str(data.leafId));
  if (leaf === undefined) leaf = state.index.count - 1;
  const target = ids.has(str(query.params.targetId)) ? ids.get(query.params.targetId) : -1;
  if (target >= 0 && !entryIndex.pathTo(state.index, leaf).includes(target)) leaf = target;
  setPath(leaf);
  await yieldTask();
  if (target >= 0) {
    computeShown();
    if (!state.view.shownPos.has(target) && !state.view.merged.has(target)) state.filter = 'all';
  }
  // Messages of the active path first (what the reader came for), then the tree.
  await state.waitFrag(lastNeeded(target));
  renderMessages(target, 'center', target >= 0);
  mark('st-path-visible');
  await afterPaint();
  mark('st-path-painted');
  bindEvents();
  refreshTree();
  // The tree opens on the entry at the top of the view (the first, or the linked target).
  state.reading = -1;
  state.pinned = target >= 0 && ui.msgs.querySelector('.st-entry[data-idx="' + target + '"]') ? target : -1;
  syncReading();
  if (state.reading < 0 && state.leaf >= 0 && state.layout.rowOf[state.leaf] >= 0) scrollRowIntoView(state.layout.rowOf[state.leaf]);
  renderTreeRows();
  mark('st-tree-ready');
  await fragsDone;
  state.searchTexts = [];
  fillInIdle(state.generation);
  state.urlFollows = true;
  root.setAttribute('data-st-ready', '1');
  warmSearch();
  return true;
}

// The hook for a page's extra scripts (live.js): add one entry (meta as in st-data, its fragment,
// images to merge) to the index; nothing shown changes until followEntry / refreshTree.
function addEntry(meta, html, images) {
  const i = entryIndex.addEntry(state.index, meta);
  state.frags.push(str(html));
  if (images && typeof images === 'object') for (const k of Object.keys(images)) state.images[k] = images[k];
  return i;
}

// The hook for a label added later (a live page): set or clear an entry's label in the index,
// its fragment, its shown head and its tree row. Fragments are parsed inert (a template element).
function relabel(id, label) {
  const i = state.index.ids.get(str(id));
  if (i === undefined) return false;
  const meta = entries()[i];
  if (label) meta.label = str(label); else delete meta.label;
  const setHead = (article) => {
    const head = article && article.querySelector(':scope > .st-head');
    if (!head) return;
    let span = head.querySelector(':scope > .st-label');
    if (!label) { if (span) span.remove(); return; }
    if (!span) {
      span = h('span', { class: 'st-label' });
      head.querySelector(':scope > .st-role').after(' ', span);
    }
    span.textContent = str(label);
  };
  if (typeof state.frags[i] === 'string') {
    const t = doc.createElement('template');
    t.innerHTML = state.frags[i];
    setHead(t.content.firstElementChild);
    state.frags[i] = t.innerHTML;
  }
  for (const article of ui.msgs.querySelectorAll('article.st-entry[data-id="' + CSS.escape(str(id)) + '"]')) setHead(article);
  state.searchTexts[i] = undefined; // its search text held the old label
  refreshTree();
  return true;
}

const api = {
  hook: { addEntry, followEntry, refreshTree, relabel },
  selectLeaf: (id) => { const i = state.index.ids.get(str(id)); if (i !== undefined) selectLeaf(i); },
  get leafId() { return state.leaf >= 0 ? str(entries()[state.leaf].id) : null; },
  get filter() { return state.filter; },
  link: (id) => linkFor(state.index.ids.has(str(id)) ? state.index.ids.get(str(id)) : null),
};
api.ready = new Promise((resolve) => {
  const run = () => boot().catch((err) => { fail(String(err && err.message)); return false; }).then(resolve);
  // Normally the script sits after the content; if not, wait for it (document.write pages too).
  if ($('st-app') && $('st-data')) run(); else doc.addEventListener('DOMContentLoaded', run, { once: true });
});
window.sessiontree = api;
