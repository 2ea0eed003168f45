/* Prompt outline (pure data, no DOM): the typed prompts of a path, numbered, each with the tools
 * its turn called and how long the turn took. Whether an entry is a typed prompt is the
 * exporter's word (meta.prompt, from readers.claude_markup.typed_prompt), never decided here. */
const outline = (() => {
  const str = (v) => (typeof v === 'string' ? v : v == null ? '' : String(v));

  // The first line of a text cut at a word boundary to at most `max` characters, with "…".
  function cutAtWord(text, max) {
    const line = str(text).split('\n').find((l) => l.trim()) || '';
    const flat = line.replace(/\s+/g, ' ').trim();
    if (flat.length <= max) return flat;
    const cut = flat.slice(0, max - 1);
    const space = cut.lastIndexOf(' ');
    return (space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:]+$/, '') + '…';
  }

  // "3 edit · 2 bash": tools by count (most first, then first called), lower case.
  function toolSummary(counts) {
    return Array.from(counts.entries())
      .map(([name, n], order) => ({ name, n, order }))
      .sort((a, b) => b.n - a.n || a.order - b.order)
      .map((t) => t.n + ' ' + t.name).join(' · ');
  }

  function timeOf(meta) {
    const t = Date.parse(str(meta && meta.ts));
    return Number.isFinite(t) ? t : NaN;
  }

  // One item per typed prompt of `path` (entry indexes, root first): {idx, n, title, tools,
  // calls, last (the turn's last entry), lastAssistant, ms (prompt to the turn's last entry)}.
  function build(entries, path, maxTitle) {
    const items = [];
    let cur = null;
    let counts = null;
    const close = () => {
      if (!cur) return;
      cur.tools = toolSummary(counts);
      const t0 = timeOf(entries[cur.idx]);
      const t1 = timeOf(entries[cur.last]);
      cur.ms = Number.isFinite(t0) && Number.isFinite(t1) && t1 > t0 ? t1 - t0 : 0;
    };
    for (const i of path) {
      const meta = entries[i] || {};
      if (meta.prompt === true) {
        close();
        cur = { idx: i, n: items.length + 1, title: cutAtWord(meta.preview, maxTitle || 80), tools: '',
          calls: 0, last: i, lastAssistant: -1, reply: -1, ms: 0 };
        counts = new Map();
        items.push(cur);
        continue;
      }
      if (!cur) continue;
      cur.last = i;
      if (meta.cat === 'assistant') {
        cur.lastAssistant = i;
        if (!Array.isArray(meta.tools) || !meta.tools.length) cur.reply = i; // says, calls nothing
      }
      if (Array.isArray(meta.tools)) {
        for (const name of meta.tools) {
          const key = str(name).toLowerCase() || 'tool';
          counts.set(key, (counts.get(key) || 0) + 1);
          cur.calls++;
        }
      }
    }
    close();
    return items;
  }

  // The entries a Focused view shows: each typed prompt and the last reply of its turn (its last
  // assistant message that calls no tool, else its last assistant message).
  function focused(items) {
    const keep = new Set();
    for (const it of items) {
      keep.add(it.idx);
      const reply = it.reply >= 0 ? it.reply : it.lastAssistant;
      if (reply >= 0) keep.add(reply);
    }
    return keep;
  }

  // Entry index -> what the head of the turn's last reply says of its turn: "turn 4.2 s · 2 calls"
  // (from the prompt to the turn's last entry; the tool calls made in it).
  function turnEnds(items) {
    const ends = new Map();
    for (const it of items) {
      const at = it.reply >= 0 ? it.reply : it.lastAssistant;
      const words = [];
      if (it.ms > 0) words.push('turn ' + duration(it.ms));
      if (it.calls > 0) words.push(it.calls + (it.calls === 1 ? ' call' : ' calls'));
      if (at >= 0 && words.length) ends.set(at, words.join(' · '));
    }
    return ends;
  }

  // The item the reader is in: the last prompt at or before path position `pos` (-1: none).
  function itemAt(items, posOf, pos) {
    let found = -1;
    if (pos < 0) return found; // no place yet (the page not laid out): no prompt, not the last
    for (let k = 0; k < items.length; k++) {
      const at = posOf(items[k].idx);
      if (at < 0) continue; // not among the shown messages (-1 would sort before every place)
      if (at <= pos) found = k; else break;
    }
    return found;
  }

  // The item to go to from path position `pos` (the top of the view) in direction d (+1 / -1).
  function step(items, posOf, pos, d) {
    if (d > 0) {
      for (let k = 0; k < items.length; k++) if (posOf(items[k].idx) > pos) return k;
      return -1;
    }
    for (let k = items.length - 1; k >= 0; k--) if (posOf(items[k].idx) < pos) return k;
    return -1;
  }

  // "42 s", "3 min 5 s", "2 h 14 min" (the header's words).
  function duration(ms) {
    const s = Math.max(0, Math.floor(ms / 1000));
    if (ms < 10000) return (Math.max(0, Math.floor(ms / 100)) / 10) + ' s'; // "4.2 s"
    if (s < 60) return s + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min' + (s % 60 ? ' ' + (s % 60) + ' s' : '');
    if (s < 86400) return Math.floor(s / 3600) + ' h' + (Math.floor(s % 3600 / 60) ? ' ' + Math.floor(s % 3600 / 60) + ' min' : '');
    return Math.floor(s / 86400) + ' d' + (Math.floor(s % 86400 / 3600) ? ' ' + Math.floor(s % 86400 / 3600) + ' h' : '');
  }

  return { cutAtWord, toolSummary, build, turnEnds, itemAt, focused, step, duration };
})();
if (typeof module === 'object' && module.exports) module.exports = outline;
