// sessiontree static site: full-text search over every message with the site's Pagefind bundles
// (one per batch of sessions: the first is loaded, the others merged into it).
// Served over HTTP the filter box also searches message text; opened from file:// (where a page
// cannot load modules or fetch the index) it filters titles, folders and first prompts only.
(function () {
  'use strict';
  const BUNDLES = __BUNDLES__;
  const LIMIT = 10;
  const doc = document;
  const input = doc.getElementById('st-filter');
  const head = doc.getElementById('st-index-head');
  if (!input || !head) return;

  const box = doc.createElement('section');
  box.id = 'st-fulltext';
  box.setAttribute('aria-label', 'Message search');
  const status = doc.createElement('p');
  status.className = 'st-fulltext-status';
  status.setAttribute('role', 'status');
  const list = doc.createElement('ol');
  list.className = 'st-fulltext-hits';
  box.append(status, list);
  head.after(box);

  if (location.protocol === 'file:') {
    status.textContent = 'Opened from a file, the box filters titles, folders and first prompts. ' +
      'Serve this folder over HTTP (for example: python3 -m http.server) to search every message.';
    return;
  }
  status.textContent = 'Type to search every message; the list below is filtered too.';

  let loading = null;
  let latest = 0;
  let timer = 0;

  // Loaded once, on the first query: the first bundle's engine, every other bundle merged into it.
  function engine() {
    if (!loading) {
      loading = (async () => {
        const base = location.pathname.replace(/[^/]*$/, '');
        const settings = { baseUrl: base, excerptLength: 24 };
        const loaded = await import(base + BUNDLES[0] + '/pagefind.js');
        await loaded.options(settings);
        loaded.init();
        await Promise.all(BUNDLES.slice(1).map((name) => loaded.mergeIndex(base + name + '/', settings)));
        return loaded;
      })();
    }
    return loading;
  }

  // Excerpts come from session text: keep their words and <mark>s, nothing else, built as nodes.
  function excerptNodes(html) {
    const parsed = new DOMParser().parseFromString('<p>' + html + '</p>', 'text/html');
    const out = doc.createDocumentFragment();
    for (const node of parsed.body.firstChild ? parsed.body.firstChild.childNodes : []) {
      if (node.nodeType === 1 && node.nodeName === 'MARK') {
        const mark = doc.createElement('mark');
        mark.textContent = node.textContent;
        out.append(mark);
      } else {
        out.append(doc.createTextNode(node.textContent || ''));
      }
    }
    return out;
  }

  // "sessions/a.html?chunk=2#<entry id>" -> "sessions/a.html?targetId=<entry id>" (the viewer's deep link).
  function entryLink(url) {
    const hash = url.indexOf('#');
    const page = url.slice(0, hash < 0 ? url.length : hash).replace(/\?.*$/, '');
    if (hash < 0) return page;
    return page + '?targetId=' + encodeURIComponent(decodeURIComponent(url.slice(hash + 1)));
  }

  function hitItem(data, sub) {
    const li = doc.createElement('li');
    li.className = 'st-fulltext-hit';
    const a = doc.createElement('a');
    a.href = entryLink(sub.url || data.url);
    a.textContent = (data.meta && data.meta.title) || data.url;
    const role = doc.createElement('span');
    role.className = 'st-fulltext-role';
    // A hit in a message section is titled by its role; one in the page's own heading by the title.
    role.textContent = (sub.url || '').includes('#') ? sub.title || '' : 'title';
    const text = doc.createElement('p');
    text.className = 'st-fulltext-excerpt';
    text.append(excerptNodes(sub.excerpt || data.excerpt || ''));
    li.append(a, ' ', role, text);
    return li;
  }

  async function run(query, ticket) {
    try {
      const pf = await engine();
      const search = await pf.search(query);
      if (ticket !== latest) return;
      const results = await Promise.all(search.results.slice(0, LIMIT).map((r) => r.data()));
      if (ticket !== latest) return;
      list.replaceChildren();
      for (const data of results) {
        const subs = data.sub_results && data.sub_results.length ? data.sub_results.slice(0, 3) : [data];
        for (const sub of subs) list.append(hitItem(data, sub));
      }
      const n = search.results.length;
      status.textContent = n ? n + ' message group' + (n === 1 ? '' : 's') + ' match' + (n === 1 ? 'es' : '') +
        (n > LIMIT ? ' (first ' + LIMIT + ' shown)' : '') : 'No message matches.';
    } catch (err) {
      status.textContent = 'Message search is unavailable here (' + (err && err.message ? err.message : err) + ').';
    }
  }

  input.addEventListener('input', () => {
    const query = input.value.trim();
    const ticket = ++latest;
    clearTimeout(timer);
    if (!query) {
      list.replaceChildren();
      status.textContent = 'Type to search every message; the list below is filtered too.';
      return;
    }
    timer = setTimeout(() => run(query, ticket), 200);
  });
})();
