/* Search text (pure data, no DOM): what a search term is matched against for one entry. */
const searchText = (() => {
  const str = (v) => (typeof v === 'string' ? v : v == null ? '' : String(v));
  const NAMED = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

  function decodeEntities(s) {
    return s.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (all, g) => {
      if (g[0] !== '#') return NAMED[g.toLowerCase()] || all;
      const cp = g[1] === 'x' || g[1] === 'X' ? parseInt(g.slice(2), 16) : parseInt(g.slice(1), 10);
      try { return String.fromCodePoint(cp); } catch (_) { return all; }
    });
  }

  // The fragment's text (tags dropped, entities decoded) and the meta fields, lower-cased.
  function entryText(meta, fragHtml) {
    return [decodeEntities(str(fragHtml).replace(/<[^>]*>/g, ' ')), str(meta.preview), str(meta.label),
      str(meta.type), str(meta.role), str(meta.cat), str(meta.id)].join(' ').toLowerCase();
  }

  function parseTerms(query) {
    return str(query).toLowerCase().split(/\s+/).filter(Boolean);
  }

  // Every term must occur (an empty query matches everything).
  function matchesTerms(text, terms) {
    for (const term of terms) if (!text.includes(term)) return false;
    return true;
  }

  return { decodeEntities, entryText, parseTerms, matchesTerms };
})();
if (typeof module === 'object' && module.exports) module.exports = searchText;
