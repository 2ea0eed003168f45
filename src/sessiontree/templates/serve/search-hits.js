/* Full-text search hits (pure data, no DOM): the query URL, snippet pieces, a hit's link. */
const searchHits = (() => {
  const DEBOUNCE_MS = 200;

  // The API URL of a query at the server's search route (empty query: no request at all).
  function queryUrl(api, query, limit) {
    const q = String(query == null ? '' : query).trim();
    if (!q) return '';
    return api + '?q=' + encodeURIComponent(q) + '&limit=' + String(limit || 20);
  }

  // [text, isMatch] pieces of a snippet; marks outside the text or overlapping are ignored.
  function snippetParts(text, marks) {
    const s = typeof text === 'string' ? text : '';
    const pieces = [];
    let at = 0;
    for (const mark of Array.isArray(marks) ? marks : []) {
      const start = Number(mark && mark[0]);
      const end = Number(mark && mark[1]);
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < at || end <= start || end > s.length) continue;
      if (start > at) pieces.push([s.slice(at, start), false]);
      pieces.push([s.slice(start, end), true]);
      at = end;
    }
    if (at < s.length) pieces.push([s.slice(at), false]);
    return pieces;
  }

  // Only the server's own session links are followed (a same-origin path under its session
  // route's prefix, such as /s/).
  function safeHref(href, prefix) {
    const ok = typeof href === 'string' && typeof prefix === 'string' && prefix.startsWith('/') && !prefix.startsWith('//');
    return ok && href.startsWith(prefix) && !href.startsWith(prefix + '/') ? href : '';
  }

  // The newest answer wins: a reply to an older query than the last one sent is dropped.
  function sequencer() {
    let sent = 0;
    return { next: () => ++sent, isCurrent: (n) => n === sent };
  }

  return { DEBOUNCE_MS, queryUrl, snippetParts, safeHref, sequencer };
})();
if (typeof module === 'object' && module.exports) module.exports = searchHits;
