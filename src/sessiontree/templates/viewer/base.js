/* sessiontree viewer: tree sidebar, filters, search, deep links, keyboard, themes. Plain ES2020, no
 * libraries, no network. Every string from the session is untrusted: metadata goes through
 * textContent only; fragments are escaped HTML made by the exporter.
 *
 * page.py joins templates/viewer/*.js into one closure (one inline script, one CSP hash): the pure
 * data modules (entry-index, search-text, tree-rows, shown-messages, fragment-stream, link-query;
 * no DOM, tested under node) first, then this file (constants, helpers, the viewer state) and the
 * DOM modules (tree-view, messages, navigation, chrome, boot), which share this scope. */

const ROW_HEIGHT = 24;         // tree row height in px (rows are virtual: only visible ones exist)
const WINDOW_BEFORE = 6;       // messages rendered above the anchor on a (re)render
const WINDOW_AFTER = 14;       // ... and below it; the rest arrives in idle chunks or on scroll
const IDLE_CAP = 4000;         // beyond this many messages, render only on scroll
const SCROLL_STEP = 40;        // messages added when the reader scrolls to an edge
const MAX_GUIDES = 32;         // deeper trees draw no more guide columns
const SIDEBAR_WIDTH = 320;     // sidebar width in px (viewer.css --st-side-w) ...
const SIDEBAR_MIN = 180;       // ... and its smallest
const TOOLBAR_SPACE = 44;      // the sticky toolbar's band at the top of the messages (viewer.css scroll-margin-top)
const FILTERS = entryIndex.FILTERS;

const doc = document;
const root = doc.documentElement;
const $ = (id) => doc.getElementById(id);
const storage = {
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

const state = {
  index: entryIndex.create([]),   // entries, count, ids, parent, children, roots, subtree
  frags: null,                    // fragment strings, filled as the gzip stream inflates
  fragsDone: false,
  waitFrag: null,                 // (i) => a promise resolved once fragment i is there
  images: Object.create(null),    // sha256 -> data: URL or image URL
  leaf: -1,                       // the active leaf and the path root -> leaf
  path: [],
  onPath: new Set(),
  filter: 'default',
  terms: [],                      // search terms (lower case)
  searchTexts: [],                // entry -> its search text (cached once fragments are done)
  searchTextsBuilt: 0,
  collapsed: new Set(),           // branch points whose side branches are folded
  layout: emptyLayout(),          // treeRows.layoutRows() + visibleCount, counts
  focusRow: 0,                    // the tree's roving tab stop
  view: shownMessages.computeShown(entryIndex.create([]), [], 'default', entryIndex.passesFilter),
  windowStart: 0,                 // [windowStart, windowEnd) of view.shown is in the DOM
  windowEnd: 0,
  generation: 0,                  // bumped on every full render (stale idle work stops)
  current: -1,                    // the message j/k moved to
  pendingRender: 0,               // the last render request waiting for fragments
  thinkingOpen: false,
  outputsOpen: false,
  callsOpen: false,
  focused: false,                 // the Focused view: typed prompts and their turns' last replies               // tool calls open (expand all / `o`); each is one line otherwise
  outline: [],                    // the active path's typed prompts (outline.build)
  turnEnds: new Map(),            // entry -> "turn 4.2 s · 2 calls" of the turn it ends
  reading: -1,                    // the entry at the top of the view (the tree's and outline's place)
  readingItem: -2,                // the outline item holding it
  pinned: -1,                     // the linked target, the reader's place while on screen
  urlFollows: false,              // the address follows the reader's place (after the page opened)
  urlTimer: 0,
  gist: null,                     // gist id kept in every link (gistpreview pages)
};
const ui = {};

function emptyLayout() {
  const layout = treeRows.layoutRows(entryIndex.create([]), new Uint8Array(0), 0, new Set());
  return Object.assign(layout, { visibleCount: 0, counts: {} });
}
const entries = () => state.index.entries;
