/* A built site's top sessions of a date range or of two filters at once (pure, no DOM): the site
 * writes each session's usage in files by UTC month beside usage.html (site/usage_chunks.py), the
 * page names the months (`chunks`); here are the files a filter needs (only the months its range
 * covers; every one, undated too, for filters of two values and no range) and the ranking of their
 * sessions as serve's /api/usage-sessions ranks them (archive/usage_query.py): a session's kept
 * rows summed (a copied message is in its oldest file's rows only), most cost, then most tokens,
 * then by path. */
const usageChunks = (() => {
  const D = typeof usageData === 'object' ? usageData : require('./usage-data.js');
  const FORMAT = 2;
  const W = 11;
  const UNDATED = 'undated';

  function monthOf(ms) {
    return new Date(ms).toISOString().slice(0, 7);
  }

  // The months whose files a filter needs; null when the page's own `tops` answer it (or the
  // site wrote no files), [] when no session can be kept.
  function chunksFor(data, filters) {
    if (!data.chunks || D.filterKey(filters) !== null) return null;
    const range = D.timeRange(data, filters);
    if (range === null) return [];
    if (range.since === undefined) return data.chunks.slice();
    const first = monthOf(range.since);
    const last = monthOf(range.until - 1);
    return data.chunks.filter((m) => m !== UNDATED && m >= first && m <= last);
  }

  // The file of a month, as the site names it.
  function chunkName(month) {
    return 'usage-sessions-' + month + '.json';
  }

  // A file as read, checked; null when it is not ours.
  function decodeChunk(raw) {
    if (!raw || raw.format !== FORMAT || !Array.isArray(raw.rows) || raw.rows.length % W) return null;
    if (!Array.isArray(raw.sessions) || !Array.isArray(raw.models) || !Array.isArray(raw.folders)) return null;
    return raw;
  }

  // Strings by code point, as Python compares them (UTF-16 units differ past U+FFFF).
  function byCodePoint(a, b) {
    if (a === b) return 0;
    const x = Array.from(a);
    const y = Array.from(b);
    for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
      if (x[i] !== y[i]) return x[i].codePointAt(0) - y[i].codePointAt(0);
    }
    return x.length - y.length;
  }

  // The sessions `filters` keep over `chunks` (decoded files, months in order), ranked: how many
  // and the first `limit`, as decodeListed makes them.
  function rank(data, chunks, filters, limit) {
    const f = filters || {};
    const range = D.timeRange(data, f);
    if (range === null) return { count: 0, offset: 0, top: [] };
    const dated = range.since !== undefined;
    const zero = new Set(data.models.filter((_, k) => data.zeroModel[k]));
    const per = new Map();
    for (const chunk of chunks) {
      const r = chunk.rows;
      for (let i = 0; i < r.length; i += W) {
        if (!(r[i + 3] > 0)) continue;
        const ts = r[i + 1];
        if (dated && (ts <= 0 || ts < range.since || ts >= range.until)) continue;
        const s = chunk.sessions[r[i]];
        if (!s) continue;
        const model = String(chunk.models[r[i + 2]]);
        if (f.model && model !== f.model) continue;
        if (f.agent && s[4] !== f.agent) continue;
        if (f.project && !D.inProject(s[7] || 'unknown', f.project)) continue;
        const file = String(chunk.folders[s[0]]) + String(s[1]);
        let t = per.get(file);
        if (!t) {
          t = { path: file, s, sums: [0, 0, 0, 0, 0, 0, 0, 0], unpriced: new Set(), zero: new Set() };
          per.set(file, t);
        }
        for (let k = 0; k < 5; k += 1) t.sums[k] += r[i + 3 + k];
        const cost = r[i + 8];
        if (cost !== null) { t.sums[5] += cost; t.sums[6] += 1; }
        t.sums[7] += r[i + 9];
        if (r[i + 10] > 0) t.unpriced.add(model);
        if (zero.has(model) && cost === 0) t.zero.add(model);
      }
    }
    const tokens = (t) => t.sums[1] + t.sums[2] + t.sums[3] + t.sums[4];
    const ranked = [...per.values()].sort((a, b) => b.sums[5] - a.sums[5] || tokens(b) - tokens(a) || byCodePoint(a.path, b.path));
    const top = ranked.slice(0, limit).map((t) => {
      const [, , title, shown, , label, href] = t.s;
      const cost = t.sums[6] ? Math.round(t.sums[5] * 1e6) / 1e6 : null;
      return D.decodeListed({ top: [[title, shown === null ? t.path : shown, label, href, ...t.sums.slice(0, 5), cost, t.sums[7], [...t.unpriced].sort(), [...t.zero].sort()]] }).top[0];
    });
    return { count: ranked.length, offset: 0, top };
  }

  return { FORMAT, UNDATED, chunksFor, chunkName, decodeChunk, rank, byCodePoint };
})();
if (typeof module === 'object' && module.exports) module.exports = usageChunks;
