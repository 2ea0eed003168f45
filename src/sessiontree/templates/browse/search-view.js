/* sessiontree: the message search's results (DOM), shared by serve and a built site, on the index
 * and on the search page. A source finds the hits: first(query) -> {total, sessions, hits, more}
 * and more(query, shown) -> {hits, more} (each with the order chosen, 'best' or 'newest', when the
 * source says it can: source.orders; first may say how many files the server still indexes,
 * pending, and is then asked again until it says none); hits are {session, sessionTitle, cwd, href, label, time (ISO,
 * optional), snippet, marks}. A hit whose text repeats an earlier one of its session is folded under
 * it (a button shows them). The exact total is shown at once; pages of hits are added as the list is
 * scrolled to its end (or its button is pressed) until every hit is shown. Every string is set as
 * text, never as HTML. Needs search-hits.js before it. */
const searchView = (() => {
  const doc = document;
  const hits = searchHits;

  function el(tag, cls, text) {
    const node = doc.createElement(tag);
    if (cls) node.className = cls;
    if (text != null) node.textContent = text;
    return node;
  }

  function excerpt(hit) {
    const p = el('p', 'st-fulltext-excerpt');
    for (const [piece, marked] of hits.snippetParts(hit.snippet, hit.marks)) {
      p.append(marked ? el('mark', '', piece) : doc.createTextNode(piece));
    }
    return p;
  }

  function hitItem(hit) {
    const li = el('li', 'st-fulltext-hit');
    const link = el('a', 'st-fulltext-role', hit.label || 'open');
    if (hit.href) link.href = hit.href;
    if (hit.time) {
      // UTC until local-time.js (on every page that shows hits) puts it in the reader's zone.
      const when = el('time', 'st-short', String(hit.time).replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC'));
      when.setAttribute('datetime', hit.time);
      link.append(' · ', when);
      if (typeof localTime === 'object') localTime.localize(link);
    }
    li.append(link, excerpt(hit));
    return li;
  }

  function groupItem(hit) {
    const li = el('li', 'st-fulltext-group');
    const head = el('h3', 'st-fulltext-session');
    const title = el('a', '', hit.sessionTitle || '(untitled)');
    if (hit.session) title.href = hit.session;
    head.append(title);
    if (hit.cwd) head.append(' ', el('span', 'st-fulltext-cwd', hit.cwd));
    li.append(head, el('ol', 'st-fulltext-hits'));
    return li;
  }

  // Mount the results after `after` (an element), searching as `input` changes.
  function mount({ input, after, source, idle, pageSize }) {
    const box = el('section');
    box.id = 'st-fulltext';
    box.setAttribute('aria-label', 'Message search');
    const status = el('p', 'st-fulltext-status', idle);
    status.setAttribute('role', 'status');
    const list = el('ol', 'st-fulltext-groups');
    const more = el('button', 'st-fulltext-more');
    more.type = 'button';
    more.hidden = true;
    const head = el('div', 'st-fulltext-head');
    head.append(status);
    let orderBox = null;
    if (source.orders) {
      const wrap = el('label', 'st-fulltext-order');
      orderBox = el('select');
      orderBox.id = 'st-order';
      orderBox.append(new Option('Best match first', 'best'), new Option('Newest first', 'newest'));
      wrap.append(el('span', '', 'Order'), ' ', orderBox);
      head.append(wrap);
    }
    const order = () => (orderBox ? orderBox.value : 'best');
    box.append(head, list, more);
    after.after(box);

    const turn = hits.sequencer();
    let timer = 0;
    let state = null;

    function done(n) {
      doc.documentElement.setAttribute('data-st-search', String(n));
    }

    function add(found) {
      for (const hit of found) {
        const { group, fresh } = state.groups.add(hit);
        if (fresh) {
          group.node = groupItem(hit);
          group.texts = new Map();
          list.append(group.node);
        }
        const item = hitItem(hit);
        const key = hits.repeatKey(hit.snippet);
        const same = key ? group.texts.get(key) : null;
        if (same) fold(same, item);
        else {
          if (key) group.texts.set(key, { li: item, repeats: [], button: null });
          group.node.querySelector('ol').append(item);
        }
        state.shown += 1;
      }
      const left = state.more ? Math.max(0, state.total - state.shown) : 0;
      more.hidden = left === 0;
      more.textContent = 'Show ' + Math.min(left, pageSize) + ' more of ' + left.toLocaleString('en-US') + ' left';
      box.setAttribute('data-shown', String(state.shown));
    }

    // A repeat goes under the first hit of its text, hidden; that hit's button shows them.
    function fold(same, item) {
      item.hidden = true;
      item.classList.add('st-fulltext-repeat');
      (same.repeats.length ? same.repeats[same.repeats.length - 1] : same.li).after(item);
      same.repeats.push(item);
      if (!same.button) {
        same.button = el('button', 'st-fulltext-repeats');
        same.button.type = 'button';
        same.button.setAttribute('aria-expanded', 'false');
        same.button.addEventListener('click', () => {
          const open = same.button.getAttribute('aria-expanded') !== 'true';
          for (const r of same.repeats) r.hidden = !open;
          same.button.setAttribute('aria-expanded', String(open));
        });
        same.li.append(same.button);
      }
      const n = same.repeats.length;
      same.button.textContent = 'Same text ' + n + ' more time' + (n === 1 ? '' : 's');
      if (same.button.getAttribute('aria-expanded') === 'true') item.hidden = false;
    }

    async function run(query) {
      const n = turn.next();
      list.replaceChildren();
      more.hidden = true;
      state = null;
      if (!query.trim()) {
        status.textContent = idle;
        done(n);
        return;
      }
      try {
        const first = await source.first(query, order());
        if (!turn.isCurrent(n)) return;
        state = { n, query, total: first.total, shown: 0, more: first.more, busy: false, groups: hits.grouper((h) => h.session || h.sessionTitle) };
        const pending = Number(first.pending) || 0;
        status.textContent = first.error || (pending > 0 ? hits.pendingText(first.total, first.sessions, pending) : hits.totalText(first.total, first.sessions));
        add(first.hits);
        if (pending > 0 && !first.error) {
          // The server indexes more at each answer: ask again until it has every file.
          setTimeout(() => { if (turn.isCurrent(n) && input.value === query) run(query); }, hits.PENDING_MS);
        }
      } catch (err) {
        if (err && err.name === 'AbortError') return;
        if (turn.isCurrent(n)) status.textContent = 'Message search failed (' + (err && err.message ? err.message : err) + ').';
      }
      if (turn.isCurrent(n)) done(n);
    }

    async function next() {
      if (!state || state.busy || !state.more) return;
      const current = state;
      current.busy = true;
      try {
        const page = await source.more(current.query, current.shown, order());
        if (state !== current) return;
        current.more = page.more && page.hits.length > 0;
        add(page.hits);
      } catch (err) {
        if (state === current) status.textContent = 'Loading more failed; press the button to try again.';
      } finally {
        current.busy = false;
      }
      // Still at the end of the list: keep going (a short page, a tall screen).
      if (state === current && !more.hidden && seen(more)) next();
    }

    function seen(node) {
      const box2 = node.getBoundingClientRect();
      return box2.top < (window.innerHeight || doc.documentElement.clientHeight) && box2.bottom > 0;
    }

    more.addEventListener('click', next);
    if (orderBox) orderBox.addEventListener('change', () => run(input.value));
    if (window.IntersectionObserver) {
      new IntersectionObserver((items) => { if (items.some((i) => i.isIntersecting)) next(); }).observe(more);
    }
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => run(input.value), hits.DEBOUNCE_MS);
    });
    if (input.value.trim()) run(input.value);
    return { status, run };
  }

  return { mount };
})();
