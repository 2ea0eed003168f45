/* Link query (pure data, no DOM): ?leafId=ID&targetId=ID deep links, gistpreview-style pages
 * whose first query part is the gist id (kept in every link). */
const linkQuery = (() => {
  // Parse a location.search string into { gist, params } (bad escapes are ignored).
  function parseQuery(search) {
    const q = String(search || '').replace(/^\?/, '');
    const params = Object.create(null);
    let gist = null;
    q.split('&').forEach((part, k) => {
      if (!part) return;
      const eq = part.indexOf('=');
      if (eq < 0) {
        if (k === 0 && /^[A-Za-z0-9_./-]{1,200}$/.test(part)) gist = part;
        return;
      }
      try {
        params[decodeURIComponent(part.slice(0, eq))] = decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '));
      } catch (_) { /* malformed escape: ignore the parameter */ }
    });
    return { gist, params };
  }

  // The link to a page (base: its URL without query or hash) showing leafId, scrolled to targetId.
  function buildLink(base, gist, leafId, targetId) {
    const parts = [];
    if (gist) parts.push(gist);
    if (leafId != null) parts.push('leafId=' + encodeURIComponent(leafId));
    if (targetId != null) parts.push('targetId=' + encodeURIComponent(targetId));
    return base + (parts.length ? '?' + parts.join('&') : '');
  }

  return { parseQuery, buildLink };
})();
if (typeof module === 'object' && module.exports) module.exports = linkQuery;
