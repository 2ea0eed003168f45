/* Fragment stream parser (pure data, no DOM): reads the JSON array of fragment strings as text
 * arrives in pieces (the gzip stream inflating) and hands out each string as soon as it is whole. */
const fragmentStream = (() => {
  const SPACE = new Set([',', ' ', '\n', '\r', '\t']);

  // parser.push(text) returns the fragments completed by `text`; parser.done is true after "]".
  // Each element is cut at its closing quote (one preceded by an even number of backslashes)
  // and parsed on its own; malformed data throws.
  function createParser() {
    let buf = '';
    let pos = 0;
    let scan = 0;
    let opened = false;
    const parser = { done: false, push };

    function push(text) {
      const out = [];
      if (parser.done) return out;
      buf = buf.slice(pos) + text;
      scan = Math.max(0, scan - pos);
      pos = 0;
      for (;;) {
        while (pos < buf.length && SPACE.has(buf[pos])) pos++;
        if (pos >= buf.length) break;
        const c = buf[pos];
        if (!opened) {
          if (c !== '[') throw new Error('bad fragment data');
          opened = true;
          pos++;
          continue;
        }
        if (c === ']') { parser.done = true; break; }
        if (c !== '"') throw new Error('bad fragment data');
        let q = Math.max(scan, pos + 1);
        let end = -1;
        for (;;) {
          q = buf.indexOf('"', q);
          if (q < 0) break;
          let slashes = 0;
          while (buf.charCodeAt(q - 1 - slashes) === 92) slashes++;
          if (slashes % 2 === 0) { end = q; break; }
          q++;
        }
        if (end < 0) { scan = buf.length; break; }
        out.push(JSON.parse(buf.slice(pos, end + 1)));
        pos = end + 1;
        scan = pos;
      }
      return out;
    }

    return parser;
  }

  return { createParser };
})();
if (typeof module === 'object' && module.exports) module.exports = fragmentStream;
