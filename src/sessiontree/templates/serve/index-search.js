/* sessiontree serve: full-text search over every session from the index page, as you type
 * (debounced, no reload); each hit opens the session page at its entry. Added only by the server;
 * needs search-hits.js before it. Every string from the server is set as text, never as HTML. */
(() => {
  'use strict';
  const hits = window.searchHits;
  const head = document.getElementById('st-index-head');
  if (!hits || !head || !window.fetch) return;
  const doc = document;

  const label = doc.createElement('label');
  label.className = 'st-search-box';
  const caption = doc.createElement('span');
  caption.className = 'st-offscreen';
  caption.textContent = 'Search inside every session';
  const input = doc.createElement('input');
  input.id = 'st-search';
  input.type = 'search';
  input.placeholder = 'Search inside sessions (words, "a phrase", pre*)';
  input.autocomplete = 'off';
  input.spellcheck = false;
  label.append(caption, input);
  const status = doc.createElement('p');
  status.id = 'st-search-status';
  status.setAttribute('aria-live', 'polite');
  const list = doc.createElement('ol');
  list.id = 'st-search-results';
  list.hidden = true;
  head.append(label, status, list);

  const order = hits.sequencer();
  let timer = 0;
  let pending = null;

  function render(found) {
    list.replaceChildren();
    for (const hit of found) {
      const li = doc.createElement('li');
      li.className = 'st-hit';
      const link = doc.createElement('a');
      const href = hits.safeHref(hit.href);
      if (href) link.href = href;
      link.textContent = hit.title || '(untitled)';
      const meta = doc.createElement('span');
      meta.className = 'st-hit-meta';
      meta.textContent = [hit.role, hit.time].filter(Boolean).join(' · ');
      const snippet = doc.createElement('p');
      snippet.className = 'st-hit-snippet';
      for (const [text, marked] of hits.snippetParts(hit.snippet, hit.marks)) {
        if (marked) {
          const mark = doc.createElement('mark');
          mark.textContent = text;
          snippet.append(mark);
        } else {
          snippet.append(doc.createTextNode(text));
        }
      }
      li.append(link, meta, snippet);
      list.append(li);
    }
    list.hidden = found.length === 0;
  }

  async function run(query) {
    const url = hits.queryUrl(query, 20);
    const n = order.next();
    if (pending) pending.abort();
    if (!url) {
      render([]);
      status.textContent = '';
      doc.documentElement.setAttribute('data-st-search', String(n));
      return;
    }
    pending = new AbortController();
    try {
      const reply = await fetch(url, { signal: pending.signal, headers: { Accept: 'application/json' } });
      const data = await reply.json();
      if (!order.isCurrent(n)) return;
      const found = Array.isArray(data.hits) ? data.hits : [];
      render(found);
      status.textContent = reply.ok ? found.length + (found.length === 1 ? ' hit' : ' hits') : String(data.error || 'Search failed');
    } catch (err) {
      if (err && err.name === 'AbortError') return;
      if (order.isCurrent(n)) status.textContent = 'Search failed';
    }
    if (order.isCurrent(n)) doc.documentElement.setAttribute('data-st-search', String(n));
  }

  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => run(input.value), hits.DEBOUNCE_MS);
  });
})();
