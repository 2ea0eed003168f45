/* sessiontree serve: message search through the server's index (its search API), on the index
 * page (the filter box) and on the search page: the exact total at once, hits grouped by session,
 * pages fetched as the list is scrolled to its end. Added only by the server; needs search-hits.js
 * and browse/search-view.js before it. Only the server's own session links are followed. */
(() => {
  'use strict';
  const urls = window.sessiontreeServe;
  const doc = document;
  const input = doc.getElementById('st-q') || doc.getElementById('st-filter');
  const after = doc.getElementById('st-index-head') || doc.getElementById('st-search-head');
  if (typeof searchView !== 'object' || !urls || !input || !after || !window.fetch) return;
  const PAGE = 50;
  let pending = null;

  function shown(hit) {
    return {
      session: searchHits.safeHref(hit.session, urls.sessions),
      sessionTitle: hit.shortTitle || hit.title || '(untitled)',
      cwd: hit.cwd || '',
      href: searchHits.safeHref(hit.href, urls.sessions),
      label: hit.role || '',
      time: typeof hit.time === 'string' ? hit.time : '',
      snippet: hit.snippet,
      marks: hit.marks,
    };
  }

  async function page(query, offset, order) {
    if (pending) pending.abort();
    pending = new AbortController();
    const reply = await fetch(searchHits.queryUrl(urls.search, query, PAGE, offset, order), {
      signal: pending.signal, headers: { Accept: 'application/json' },
    });
    const data = await reply.json();
    const found = Array.isArray(data.hits) ? data.hits.map(shown) : [];
    return { data, found, error: reply.ok ? '' : String(data.error || 'Search failed') };
  }

  const source = {
    orders: true, // the server ranks best matches first, or the newest
    async first(query, order) {
      const { data, found, error } = await page(query, 0, order);
      const total = Number(data.total) || 0;
      const pending = Number(data.pending) || 0;
      return { total, sessions: Number(data.sessions) || 0, hits: found, more: found.length < total, error, pending };
    },
    async more(query, offset, order) {
      const { found } = await page(query, offset, order);
      return { hits: found, more: found.length === PAGE };
    },
  };
  searchView.mount({
    input, after, source, pageSize: PAGE,
    idle: 'Type to search every message (words, "a phrase", pre*)' + (input.id === 'st-filter' ? '; the list below is filtered too.' : '.'),
  });
})();
