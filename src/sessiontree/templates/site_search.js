// sessiontree static site: message search over the site's Pagefind bundles (one per batch of
// sessions: those the router says can hold the query's words are merged into one), on the index
// (the filter box) and on search.html. Every hit is a message: the total counts them all, exact words and phrases rank
// before stems and partial matches (or the newest come first: each chunk's "times" metadata holds
// its messages' times), and the list grows to the last hit as it is scrolled.
// Opened from file:// (where a page cannot load modules or fetch the index) the index's box
// filters titles, folders and first prompts only. Needs search-hits.js and search-view.js.
(function () {
  'use strict';
  const COUNT = __BUNDLES__; // the site's bundles, named in the router's list files (not in the page)
  const FIRST = __FIRST__;
  const LIST_NAMES = __LIST_NAMES__;
  const ROUTER = __ROUTER__;
  const ROUTES = __ROUTES__; // the router's routes ({"always": [...], "shards": {"xy": hash}, "meta0": ...}), or null
  const PAGE = 50;
  const LOAD_AT_ONCE = 16;
  const doc = document;
  const input = doc.getElementById('st-q') || doc.getElementById('st-filter');
  const after = doc.getElementById('st-index-head') || doc.getElementById('st-search-head');
  if (!input || !after || typeof searchView !== 'object') return;
  const onIndex = input.id === 'st-filter';

  if (location.protocol === 'file:') {
    const note = doc.createElement('section');
    note.id = 'st-fulltext';
    note.setAttribute('aria-label', 'Message search');
    note.textContent = 'Opened from a file, ' + (onIndex ? 'the box filters titles, folders and first prompts. ' : 'message search cannot run. ') +
      'Serve this folder over HTTP (for example: python3 -m http.server) to search every message.';
    after.after(note);
    return;
  }

  const base = new URL('.', location.href).pathname;
  // metaCacheTag: the address of each bundle's entry file, which the page preloads, known before
  // Pagefind asks for it (its default adds the time of each request). Still the page's own time,
  // not a tag of the build: a bundle rebuilt under its name (--force, another Pagefind) may name
  // other metadata files than a browser's cached entry file.
  const settings = { baseUrl: base, excerptLength: 24, metaCacheTag: String(Date.now()) };
  let loading = null;
  let code = null;
  const merged = new Map();
  // Pagefind's module (the same in every bundle), asked for while the router is read: the first
  // query waits for one round trip less.
  function module() {
    routerRoutes();
    if (!code) code = import(base + FIRST + '/pagefind.js');
    return code;
  }
  function preload(url) {
    const link = doc.createElement('link');
    link.rel = 'preload';
    link.as = 'fetch';
    link.crossOrigin = 'anonymous';
    link.href = url;
    doc.head.append(link);
  }
  // The files Pagefind asks for one after another (a bundle's entry, then its metadata; the first
  // one's WebAssembly), asked for at once as soon as the router named the bundles: Pagefind (on the
  // page's thread, not in its worker, where a page's preloads do not reach) takes them from there.
  const metaOf = new Map();
  const PRELOADED = 32; // a query of more bundles (a common word's) leaves Pagefind to ask in turn
  // Pagefind itself, on the site's first bundle: its module, entry, metadata and WebAssembly asked
  // for as the search page starts (with the query's router shard), or with the index page's first
  // query. A query's bundles are merged into it.
  function start() {
    if (!loading) {
      merged.set(FIRST, null);
      preload(base + FIRST + '/pagefind-entry.json?ts=' + settings.metaCacheTag);
      preload(base + FIRST + '/wasm.en.pagefind');
      if (ROUTES && /^[\w-]+$/.test(String(ROUTES.meta0))) preload(base + FIRST + '/pagefind.' + ROUTES.meta0 + '.pf_meta');
      loading = (async () => {
        const loaded = await module();
        await loaded.options({ ...settings, noWorker: true, basePath: base + FIRST + '/' });
        return loaded;
      })();
    }
    return loading;
  }
  let started = false;
  // Pagefind with every bundle of ``names`` merged (once each, as later queries need them).
  async function engine(names) {
    for (const name of names.length <= PRELOADED ? names : []) {
      if (merged.has(name)) continue;
      preload(base + name + '/pagefind-entry.json?ts=' + settings.metaCacheTag);
      if (metaOf.has(name)) preload(base + name + '/pagefind.' + metaOf.get(name) + '.pf_meta');
    }
    const loaded = await start();
    // Pagefind reads its files (the page asked for them) and compiles its WebAssembly once the
    // query's own files are asked for: that work on the page's thread would hold up their asking.
    if (!started) loaded.init();
    started = true;
    await Promise.all(names.map((name) => {
      if (!merged.has(name)) merged.set(name, loaded.mergeIndex(base + name + '/', settings));
      return merged.get(name);
    }));
    return loaded;
  }

  // The router (site/search_router.py) names the bundles that can hold a word, by its first
  // three letters: merging every bundle cost two requests and a worker instance each. A word
  // under four letters (its stem may be under three: its -> it) or not of a-z and 0-9 loads them all.
  const ROUTED_MIN = 4;
  const STEMMED = { dyi: 'die', lyi: 'lie', tyi: 'tie', ski: 'sky', sky: 'ski' };
  function routerKeys(query) {
    const words = query.toLowerCase().replace(/"/g, ' ').split(/\s+/).filter(Boolean);
    if (!words.length) return null;
    const keys = new Set();
    for (const word of words) {
      if (word.length < ROUTED_MIN || !/^[a-z0-9]+$/.test(word)) return null;
      const key = word.slice(0, 3);
      keys.add(key);
      if (key.endsWith('y')) keys.add(key.slice(0, 2) + 'i');
      if (STEMMED[key]) keys.add(STEMMED[key]);
    }
    return [...keys];
  }

  // This list's routes: the name of each shard it wrote, by its content's hash, and its bundles
  // without keys. The page carries them (a query's shard is asked for in the first round trip,
  // with Pagefind's module); a page written without them reads them first, once. A page never
  // reads a shard of another build's list.
  let routes = ROUTES && typeof ROUTES.shards === 'object' ? Promise.resolve(ROUTES) : null;
  function routerRoutes() {
    if (!routes) {
      routes = fetch(base + 'search-router/list-' + ROUTER + '-routes.json')
        .then((r) => (r.ok ? r.json() : null))
        .then((d) => (d && d.v === ROUTER && d.shards && typeof d.shards === 'object' ? d : null))
        .catch(() => null);
    }
    return routes;
  }
  const shards = new Map();
  function shard(name) {
    if (!shards.has(name)) {
      // A shard the routes do not name holds no key; one that cannot be read routes nothing.
      shards.set(name, routerRoutes().then((map) => {
        if (!map) return null;
        if (!Object.hasOwn(map.shards, name)) return { keys: {} };
        const hash = String(map.shards[name]);
        if (!/^[0-9a-f]+$/.test(hash)) return null;
        return fetch(base + 'search-router/' + name + '-' + hash + '.json')
          .then((r) => (r.ok ? r.json() : null))
          .catch(() => null);
      }));
    }
    return shards.get(name);
  }
  // A split shard (one whose two letters' keys are in many bundles) names a file per key.
  function keyShard(split, key) {
    if (!Object.hasOwn(split, key)) return Promise.resolve({ keys: {} });
    const hash = String(split[key]);
    if (!/^[0-9a-f]+$/.test(hash)) return Promise.resolve(null);
    const file = key + '-' + hash;
    if (!shards.has(file)) {
      shards.set(file, fetch(base + 'search-router/' + file + '.json')
        .then((r) => (r.ok ? r.json() : null))
        .catch(() => null));
    }
    return shards.get(file);
  }

  // The bundles' names by their numbers (the router's), from this build's list files.
  const lists = new Map();
  function listFile(n) {
    if (!lists.has(n)) {
      lists.set(n, fetch(base + 'search-router/list-' + ROUTER + '-' + n + '.json')
        .then((r) => (r.ok ? r.json() : null))
        .then((d) => (d && d.v === ROUTER && Array.isArray(d.names) ? d.names : null))
        .catch(() => null));
    }
    return lists.get(n);
  }

  async function namesOf(numbers) {
    const sorted = [...numbers].sort((a, b) => a - b);
    const files = [...new Set(sorted.map((i) => Math.floor(i / LIST_NAMES)))];
    const got = new Map(await Promise.all(files.map(async (n) => [n, await listFile(n)])));
    return sorted.map((i) => {
      const names = got.get(Math.floor(i / LIST_NAMES));
      if (!names || typeof names[i % LIST_NAMES] !== 'string') throw new Error('The search index changed: reload the page.');
      return 'pagefind-' + names[i % LIST_NAMES];
    });
  }

  function every() {
    return namesOf(Array.from({ length: COUNT }, (_, i) => i));
  }

  async function bundlesFor(query) {
    const keys = routerKeys(query);
    if (!keys) return every();
    const names = [...new Set(keys.map((k) => k.slice(0, 2)))];
    const tables = new Map(names.map((n, i) => [n, i]));
    const loaded = await Promise.all(names.map(shard));
    if (loaded.some((t) => !t || typeof t !== 'object')) return every();
    const split = (key) => loaded[tables.get(key.slice(0, 2))].split;
    const tableOf = await Promise.all(keys.map((key) => (
      split(key) && typeof split(key) === 'object' ? keyShard(split(key), key) : loaded[tables.get(key.slice(0, 2))]
    )));
    if (tableOf.some((t) => !t || typeof t !== 'object')) return every();
    const chosen = new Set((await routerRoutes()).always || []);
    const named = new Set();
    keys.forEach((key, k) => {
      const table = tableOf[k];
      if (table.keys && Object.hasOwn(table.keys, key)) for (const i of table.keys[key]) chosen.add(i);
      if (table.names && Object.hasOwn(table.names, key)) for (const n of table.names[key]) named.add('pagefind-' + n);
    });
    for (const table of tableOf) {
      for (const [n, meta] of Object.entries(table.meta || {})) if (/^[\w-]+$/.test(meta)) metaOf.set('pagefind-' + n, meta);
    }
    // The page's order is the names' (the build sorts them): a rare key's named bundles need no list.
    return [...new Set([...await namesOf(chosen), ...named])].sort();
  }

  // An excerpt's text and the places of its <mark>s (session text: never used as HTML), the
  // section heading Pagefind puts first (the role: "tool.") taken off.
  function excerptOf(html, role) {
    const parsed = new DOMParser().parseFromString('<p>' + html + '</p>', 'text/html');
    let text = '';
    const marks = [];
    for (const node of parsed.body.firstChild ? parsed.body.firstChild.childNodes : []) {
      const piece = node.textContent || '';
      if (node.nodeType === 1 && node.nodeName === 'MARK') marks.push([text.length, text.length + piece.length]);
      text += piece;
    }
    const head = role ? text.match(new RegExp('^\\s*' + role.replace(/[^\w]/g, '') + '\\.\\s*')) : null;
    if (!head) return { text, marks };
    const cut = head[0].length;
    return { text: text.slice(cut), marks: marks.filter((m) => m[0] >= cut).map((m) => [m[0] - cut, m[1] - cut]) };
  }

  // "sessions/a.html?chunk=2#<entry id>" -> "sessions/a.html?targetId=<entry id>" (the viewer's deep link).
  function pageOf(url) {
    const hash = url.indexOf('#');
    return url.slice(0, hash < 0 ? url.length : hash).replace(/\?.*$/, '');
  }

  function entryLink(url) {
    const hash = url.indexOf('#');
    if (hash < 0) return pageOf(url);
    return pageOf(url) + '?targetId=' + encodeURIComponent(decodeURIComponent(url.slice(hash + 1)));
  }

  // Each message's time (ISO) by its entry id: the chunk's "times" are epoch seconds (0 unknown)
  // in the order of its headings, which are its only anchors.
  function timesOf(data) {
    const secs = String((data.meta && data.meta.times) || '').split(' ');
    const out = new Map();
    (data.anchors || []).forEach((a, k) => {
      const s = Number(secs[k]);
      if (s > 0 && a && typeof a.id === 'string') out.set(a.id, new Date(s * 1000).toISOString());
    });
    return out;
  }

  function hitsOf(data) {
    const subs = data.sub_results && data.sub_results.length ? data.sub_results : [data];
    const title = (data.meta && data.meta.title) || pageOf(data.url);
    const times = timesOf(data);
    return subs.map((sub) => {
      const inMessage = (sub.url || '').includes('#');
      const role = inMessage ? sub.title || '' : 'title';
      const { text, marks } = excerptOf(sub.excerpt || data.excerpt || '', inMessage ? role : '');
      const time = inMessage && sub.anchor ? times.get(sub.anchor.id) || '' : '';
      return { session: pageOf(data.url), sessionTitle: title, href: entryLink(sub.url || data.url), label: role, snippet: text, marks, time };
    });
  }

  async function loadAll(results) {
    const out = new Array(results.length);
    let next = 0;
    async function worker() {
      while (next < results.length) {
        const i = next++;
        out[i] = await results[i].data();
      }
    }
    await Promise.all(Array.from({ length: Math.min(LOAD_AT_ONCE, results.length) }, worker));
    return out;
  }

  let ranked = [];
  const source = {
    orders: true, // best match first, or the newest message first
    async first(query, order) {
      if (COUNT) module().catch(() => null);
      const names = await bundlesFor(query);
      if (!names.length) {
        ranked = [];
        return { total: 0, sessions: 0, hits: [], more: false };
      }
      const pf = await engine(names);
      const search = await pf.search(query);
      const datas = await loadAll(search.results);
      const all = datas.flatMap(hitsOf);
      ranked = order === 'newest'
        ? searchHits.newestFirst(all, (h) => h.time)
        : searchHits.exactFirst(all, (h) => searchHits.matchRank(query, h.snippet, h.marks));
      const sessions = new Set(ranked.map((h) => h.session)).size;
      return { total: ranked.length, sessions, hits: ranked.slice(0, PAGE), more: ranked.length > PAGE };
    },
    async more(_query, shown) {
      const page = ranked.slice(shown, shown + PAGE);
      return { hits: page, more: shown + page.length < ranked.length };
    },
  };
  if (!onIndex && COUNT) start().catch(() => null);
  searchView.mount({
    input, after, source, pageSize: PAGE,
    idle: 'Type to search every message' + (onIndex ? '; the list below is filtered too.' : '.'),
  });
})();
