/* sessiontree serve: the index page's filter box also searches inside every session, through the
 * server's index (its search API), as you type (debounced, no reload); each hit opens the session
 * page at its entry. Same look as the static site's message search. Added only by the server;
 * needs search-hits.js before it. Every string from the server is set as text, never as HTML. */
(() => {
  'use strict';
  const hits = typeof searchHits === 'object' ? searchHits : null; // search-hits.js's global
  const doc = document;
  const input = doc.getElementById('st-filter');
  const head = doc.getElementById('st-index-head');
  const urls = window.sessiontreeServe;
  if (!hits || !urls || !input || !head || !window.fetch) return;

  const box = doc.createElement('section');
  box.id = 'st-fulltext';
  box.setAttribute('aria-label', 'Message search');
  const status = doc.createElement('p');
  status.className = 'st-fulltext-status';
  status.setAttribute('role', 'status');
  status.textContent = 'Type to search every message (words, "a phrase", pre*); the list below is filtered too.';
  const list = doc.createElement('ol');
  list.className = 'st-fulltext-hits';
  box.append(status, list);
  head.after(box);

  const order = hits.sequencer();
  let timer = 0;
  let pending = null;

  function hitItem(hit) {
    const li = doc.createElement('li');
    li.className = 'st-fulltext-hit';
    const link = doc.createElement('a');
    const href = hits.safeHref(hit.href, urls.sessions);
    if (href) link.href = href;
    // The title cut at a word boundary (archive's cut_title), the whole of it on hover.
    link.textContent = hit.shortTitle || hit.title || '(untitled)';
    if (hit.title && hit.shortTitle && hit.shortTitle !== hit.title) link.title = hit.title;
    const role = doc.createElement('span');
    role.className = 'st-fulltext-role';
    role.textContent = [hit.role, hit.time].filter(Boolean).join(' · ');
    const text = doc.createElement('p');
    text.className = 'st-fulltext-excerpt';
    for (const [piece, marked] of hits.snippetParts(hit.snippet, hit.marks)) {
      if (marked) {
        const mark = doc.createElement('mark');
        mark.textContent = piece;
        text.append(mark);
      } else {
        text.append(doc.createTextNode(piece));
      }
    }
    li.append(link, ' ', role, text);
    return li;
  }

  function done(n) {
    doc.documentElement.setAttribute('data-st-search', String(n));
  }

  async function run(query) {
    const url = hits.queryUrl(urls.search, query, 20);
    const n = order.next();
    if (pending) pending.abort();
    pending = null;
    if (!url) {
      list.replaceChildren();
      status.textContent = '';
      done(n);
      return;
    }
    pending = new AbortController();
    try {
      const reply = await fetch(url, { signal: pending.signal, headers: { Accept: 'application/json' } });
      const data = await reply.json();
      if (!order.isCurrent(n)) return;
      const found = Array.isArray(data.hits) ? data.hits : [];
      list.replaceChildren(...found.map(hitItem));
      if (!reply.ok) status.textContent = String(data.error || 'Search failed');
      else status.textContent = found.length ? found.length + (found.length === 1 ? ' message matches.' : ' messages match.') : 'No message matches.';
    } catch (err) {
      if (err && err.name === 'AbortError') return;
      if (order.isCurrent(n)) status.textContent = 'Message search failed; try again.';
    }
    if (order.isCurrent(n)) done(n);
  }

  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => run(input.value), hits.DEBOUNCE_MS);
  });
})();
