/* sessiontree: the sessions pane of a session page (serve and a built site; never an exported
 * file): the sessions of this project (or of all), newest activity first, filters, a dot and a
 * count for what grew since last seen, Alt+Up / Alt+Down to the previous / next session, and a
 * marker where this page's unseen part begins. A server (window.sessiontreeBrowse.window) answers
 * the window the pane shows: filtered, counted and paged by the server (/api/sessions/window), the
 * first around this session, the next as the list is scrolled, so the page holds what it shows, not
 * the archive. A built site's list (window.sessiontreeBrowse.data) comes in files, filtered here.
 * Either is fetched again when a server says its listing is in another state than the list's (the
 * 'st-sessions-changed' event session-live.js raises from the page's event stream: first when it
 * opens, as a change may have come between the fetch and it). "Last seen" is a time mark (the last
 * visit) and a bounded set of per-session baselines in localStorage.
 * Every string from the list is set as text. Needs session-list.js before it. The pane starts
 * once the page's first screen is painted (a frame after this script, or at once in a hidden tab):
 * its drawing is not what the reader waits for first. Its list is asked for at once, as this script
 * runs with the page's first chunk, and through XMLHttpRequest, not fetch: fetch's reply and its
 * body's JSON come in tasks of their own, which waited behind the viewer's first screen until it
 * was painted; the request's load comes in one, run as soon as the viewer yields for its paint. */
(() => {
  'use strict';
  // The first part of the list, asked for before the pane is built (null: no pane on this page).
  const FIRST_ROWS = 100;
  const MARK = 'sessiontree.mark:';
  // A server's first window: this project's sessions around this one, counted since the last visit.
  function firstWindow(settings) {
    let mark = null;
    try { mark = JSON.parse(localStorage.getItem(MARK + new URL(settings.window, location.href).pathname) || 'null'); } catch (e) { mark = null; }
    const url = new URL(settings.window, location.href);
    for (const [k, v] of sessionList.windowQuery({ scope: 'project', of: settings.current, mark })) url.searchParams.set(k, v);
    url.searchParams.set('around', settings.current || '');
    url.searchParams.set('limit', String(FIRST_ROWS));
    return [url.href, mark];
  }
  const firstReply = (() => {
    const settings = window.sessiontreeBrowse || {};
    if (!(settings.window || settings.data) || !document.getElementById('st-sidebar') || location.protocol === 'file:') return null;
    const reply = getJson(settings.window ? firstWindow(settings)[0] : new URL(settings.data, location.href).href);
    reply.catch(() => {}); // weighed when the pane takes it
    return reply;
  })();
  function getJson(url) {
    return new Promise((resolve, reject) => {
      const ask = new XMLHttpRequest();
      ask.open('GET', url);
      ask.setRequestHeader('Accept', 'application/json');
      ask.setRequestHeader('Cache-Control', 'no-cache'); // a site's list as it is now
      ask.responseType = 'json';
      ask.onload = () => (ask.status === 200 && ask.response ? resolve(ask.response) : reject(new Error(String(ask.status))));
      ask.onerror = () => reject(new Error('network'));
      ask.send();
    });
  }
  const start = () => {
    const settings = window.sessiontreeBrowse || {};
    const doc = document;
    const side = doc.getElementById('st-sidebar');
    if (!(settings.window || settings.data) || !side || location.protocol === 'file:') return;
    const list = sessionList;
    const POLL_MS = settings.poll || 0;
    const MORE_ROWS = 200;
    const MOST_SEEN = 2000; // the per-session baselines kept (the last seen)
    const windowed = !!settings.window;
    const dataUrl = new URL(settings.window || settings.data, location.href);
    const STORE = 'sessiontree.seen:' + dataUrl.pathname;
    const OPEN = 'sessiontree.pane:' + dataUrl.pathname;

    function load(key) {
      try { return JSON.parse(localStorage.getItem(key) || 'null'); } catch (e) { return null; }
    }
    function save(key, value) {
      try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode, full */ }
    }
    let seen = load(STORE) || {};
    const before = seen[settings.current] || null; // this page's last visit, read before it is updated
    // A server's "since last seen": sessions changed after this pane's last visit (a time, not a list).
    const mark = windowed ? firstWindow(settings)[1] : null;
    if (windowed) save(MARK + dataUrl.pathname, Date.now());

    function el(tag, cls, text) {
      const node = doc.createElement(tag);
      if (cls) node.className = cls;
      if (text != null) node.textContent = text;
      return node;
    }
    function select(label, cls) {
      const wrap = el('label', 'st-browse-field');
      wrap.append(el('span', 'st-browse-label', label));
      const box = el('select', cls);
      wrap.append(box);
      return [wrap, box];
    }
    function options(box, values, all) {
      const keep = box.value;
      box.replaceChildren(new Option(all, ''), ...values.map((v) => new Option(v, v)));
      box.value = values.includes(keep) ? keep : '';
    }

    const pane = el('section');
    pane.id = 'st-browse';
    pane.setAttribute('aria-label', 'Sessions');
    const head = el('div', 'st-browse-head');
    const toggle = el('button', 'st-browse-toggle', 'Sessions');
    toggle.type = 'button';
    const [scopeWrap, scope] = select('Show', 'st-browse-scope');
    scope.append(new Option('This project', 'project'), new Option('All projects', 'all'));
    head.append(toggle, scopeWrap);
    const filters = el('details', 'st-browse-filters');
    filters.append(el('summary', '', 'Filters'));
    const [projectWrap, project] = select('Project', 'st-browse-project');
    const [agentWrap, agent] = select('Agent', 'st-browse-agent');
    const [modelWrap, model] = select('Model', 'st-browse-model');
    const dates = [];
    for (const name of ['From', 'To']) {
      const wrap = el('label', 'st-browse-field');
      wrap.append(el('span', 'st-browse-label', name));
      const box = el('input', 'st-browse-' + name.toLowerCase());
      box.type = 'date';
      wrap.append(box);
      dates.push([wrap, box]);
    }
    filters.append(projectWrap, agentWrap, modelWrap, dates[0][0], dates[1][0]);
    const status = el('p', 'st-browse-status');
    status.setAttribute('aria-live', 'polite');
    const rows = el('ol', 'st-browse-list');
    const body = el('div', 'st-browse-body');
    body.append(filters, status, rows);
    pane.append(head, body);
    side.prepend(pane);

    let sessions = [];
    let shown = [];
    let current = null;
    let drawn = FIRST_ROWS;
    // A server's window: where the loaded rows start among those the filter keeps, how many it keeps.
    let spanAt = 0;
    let total = 0;
    let fresh = 0;
    let stretching = false; // a next or earlier window under way
    const earlier = el('li', 'st-browse-more st-browse-earlier');
    earlier.addEventListener('click', () => stretch(-1));
    // The rows past the drawn ones come as the list is scrolled to its end.
    const more = el('li', 'st-browse-more');
    const moreRows = window.IntersectionObserver
      ? new IntersectionObserver((seen) => { if (seen.some((e) => e.isIntersecting)) drawMore(); }, { root: null })
      : null;
    if (moreRows) moreRows.observe(more);
    more.addEventListener('click', () => drawMore());

    function setOpen(open) {
      toggle.setAttribute('aria-expanded', String(open));
      body.hidden = !open;
      pane.classList.toggle('st-browse-closed', !open);
    }
    setOpen(load(OPEN) !== false);
    toggle.addEventListener('click', () => {
      const open = body.hidden;
      setOpen(open);
      save(OPEN, open);
    });

    function filter() {
      const all = scope.value === 'all';
      return {
        scope: all && !project.value ? 'all' : 'project',
        project: all ? project.value : current ? current.p : null,
        agent: agent.value,
        model: model.value,
        from: dates[0][1].value,
        to: dates[1][1].value,
      };
    }

    function row(s, now) {
      const li = el('li', 'st-browse-row');
      const link = el('a', 'st-browse-link');
      link.href = s.h;
      if (s.k === settings.current) link.setAttribute('aria-current', 'page');
      const line = el('span', 'st-browse-line');
      if (s.a) line.append(el('span', 'st-browse-agent-badge', s.a)); // every row, pi's too
      line.append(el('span', 'st-browse-title', s.t || s.k));
      const meta = el('span', 'st-browse-meta');
      const bits = [list.ago(s.u, now)];
      if (typeof s.q === 'number') bits.push(s.q + (s.q === 1 ? ' prompt' : ' prompts'));
      if (typeof s.n === 'number') bits.push(s.n + (s.n === 1 ? ' message' : ' messages'));
      meta.textContent = bits.join(' · ');
      const grew = s.k === settings.current ? 0 : list.unseen(s, seen[s.k]);
      // No baseline (a session the pane never showed): new when it changed after the last visit.
      const later = !grew && s.k !== settings.current && !seen[s.k] && typeof mark === 'number' && s.u > mark;
      if (grew || later) {
        li.classList.add('st-browse-grew');
        const dot = el('span', 'st-browse-dot');
        dot.setAttribute('aria-hidden', 'true');
        line.prepend(dot);
        meta.append(' · ', el('span', 'st-browse-new', grew ? grew + ' new' : 'new'));
      }
      const when = typeof localTime === 'object' ? localTime.format(new Date(s.u).toISOString(), {}) : null;
      link.title = [s.t, s.p, when && 'last activity ' + when.text + ' (' + when.title + ')'].filter(Boolean).join('\n');
      link.append(line, meta);
      li.append(link);
      li.dataset.key = s.k;
      return li;
    }

    function setMore() {
      if (windowed) {
        const left = total - spanAt - sessions.length;
        more.textContent = left > 0 ? left + ' more…' : '';
        if (left > 0) rows.append(more);
        else more.remove();
        earlier.textContent = spanAt > 0 ? spanAt + ' newer…' : '';
        if (spanAt > 0) rows.prepend(earlier);
        else earlier.remove();
        return;
      }
      const left = shown.length - drawn;
      more.textContent = left > 0 ? left + ' more…' : '';
      if (left > 0) rows.append(more);
      else more.remove();
    }
    function drawMore() {
      if (windowed) { stretch(1); return; }
      if (drawn >= shown.length) return;
      const now = Date.now();
      const next = shown.slice(drawn, drawn + MORE_ROWS);
      drawn += next.length;
      more.remove();
      rows.append(...next.map((s) => row(s, now)));
      setMore();
    }

    function draw(keep) {
      const started = performance.now();
      shown = windowed ? sessions : list.visible(sessions, filter());
      const now = Date.now();
      drawn = windowed ? sessions.length : Math.max(FIRST_ROWS, keep ? drawn : 0);
      rows.replaceChildren(...shown.slice(0, drawn).map((s) => row(s, now)));
      setMore();
      const count = windowed ? total : shown.length;
      const grew = windowed ? fresh : shown.filter((s) => s.k !== settings.current && list.unseen(s, seen[s.k]) > 0).length;
      status.textContent = count + (count === 1 ? ' session' : ' sessions') + (grew ? ', ' + grew + (windowed ? ' changed since your last visit' : ' with new messages') : '');
      projectWrap.hidden = scope.value !== 'all';
      doc.documentElement.setAttribute('data-st-browse', String(count));
      pane.dataset.drawMs = String(Math.round(performance.now() - started));
      if (!performance.getEntriesByName('st-browse-drawn').length) performance.mark('st-browse-drawn');
    }

    // Sessions the pane has not seen before get a baseline: growth from now on shows as new. This
    // session is seen as it is now: its entries counted on the first load, by time once it grew here.
    function remember(first) {
      let changed = false;
      const now = Date.now();
      for (const s of sessions) {
        if (!seen[s.k] && typeof s.n === 'number' && s !== current) {
          seen[s.k] = { n: s.n, t: windowed ? now : s.u };
          changed = true;
        }
      }
      if (current && typeof current.n === 'number') {
        const was = seen[current.k];
        const entries = first ? pageEntries() : null;
        if (first || !was || was.n !== current.n) {
          seen[current.k] = entries ? { n: current.n, e: entries.length, t: Date.now() } : { n: current.n, t: Date.now() };
          changed = true;
        }
      }
      if (changed) {
        seen = list.bounded(seen, MOST_SEEN);
        save(STORE, seen);
      }
    }

    let entriesCache = null;
    function pageEntries() {
      if (entriesCache) return entriesCache;
      try {
        const data = JSON.parse(doc.getElementById('st-data').textContent);
        entriesCache = Array.isArray(data.entries) ? data.entries : null;
      } catch (e) { entriesCache = null; }
      return entriesCache;
    }

    // A marker above the first entry this reader has not seen (styled through the CSSOM, so it
    // shows wherever the viewer draws that entry; CSP governs no CSSOM rule).
    function markUnseen() {
      const entries = pageEntries();
      if (!entries || !before) return;
      const at = list.firstUnseen(entries, before);
      if (at < 0 || typeof entries[at].id !== 'string') return;
      const id = entries[at].id;
      doc.documentElement.setAttribute('data-st-unseen', id);
      const sheet = new CSSStyleSheet();
      sheet.replaceSync('#st-messages .st-entry[data-id="' + CSS.escape(id) + '"]::before { content: "New since your last visit"; }');
      doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
      doc.documentElement.classList.add('st-has-unseen');
    }

    // A site's links are relative to its top folder, where the data files are.
    function linked(rows) {
      const found = Array.isArray(rows) ? rows : [];
      for (const s of found) s.h = new URL(String(s.h), dataUrl).href;
      return found;
    }

    // A large site's list comes in files of some hundred sessions: the first drawn at once, the
    // others ('more', next to it) fetched after and the list drawn again once all are in.
    async function loadMore(names, asked) {
      const parts = await Promise.all(names.map((name) => getJson(new URL(String(name), dataUrl).href)));
      if (asked !== refreshes) return; // a newer list came meanwhile: these parts are of an older one
      sessions = sessions.concat(...parts.map((part) => linked(part && part.sessions)));
      current = sessions.find((s) => s.k === settings.current) || null;
      options(project, list.choices(sessions, (s) => s.p), 'Every project');
      options(agent, list.choices(sessions, (s) => s.a), 'Every agent');
      options(model, list.choices(sessions, (s) => s.m), 'Every model');
      draw(true);
    }

    let loaded = false;
    let early = firstReply; // the first fetch's reply: asked for as the page came
    let state = null; // the server's listing state of the list drawn (null: none said)
    let refreshes = 0; // a reply to an older fetch than the last one asked is dropped
    let asking = 0; // fetches of the list under way
    let heard = null; // what the server said of its listing meanwhile: its state, or '' (it changed)
    async function refresh() {
      asking++;
      try { await fetchList(); } finally { asking--; }
      if (asking || heard === null) return;
      const said = heard;
      heard = null;
      if (!said || said !== state) refresh();
    }
    // The server says its listing's state: the list is fetched again unless the one drawn has it;
    // said while a fetch is under way, it is weighed once that fetch is in (one fetch, not two).
    function told(said) {
      if (asking) heard = said;
      else if (!said || said !== state) refresh();
    }

    // A server's window of the filter: `how` 'first' (around this session), 'again' (the loaded
    // span, the listing changed: with the filters' choices), 1 / -1 (the next / an earlier window).
    function windowUrl(how) {
      const url = new URL(dataUrl.href);
      const all = scope.value === 'all';
      const f = { scope: all ? 'all' : 'project', project: project.value, of: settings.current, agent: agent.value, model: model.value, from: dates[0][1].value, to: dates[1][1].value, mark };
      const params = list.windowQuery(f);
      for (const [k, v] of params) url.searchParams.set(k, v);
      let offset = spanAt;
      let limit = Math.min(500, Math.max(FIRST_ROWS, sessions.length));
      if (how === 'first') {
        url.searchParams.set('around', settings.current || '');
        limit = FIRST_ROWS;
      } else if (how === 1) {
        offset = spanAt + sessions.length;
        limit = MORE_ROWS;
      } else if (how === -1) {
        offset = Math.max(0, spanAt - MORE_ROWS);
        limit = spanAt - offset;
      } else if (how === 'choices') {
        offset = 0;
        limit = 1;
      }
      if (how !== 'first') url.searchParams.set('offset', String(offset));
      url.searchParams.set('limit', String(limit));
      if (how === 'again' || how === 'choices') url.searchParams.set('choices', '1');
      return url.href;
    }
    function chosen(data) {
      const c = data && data.choices;
      if (!c) return;
      options(project, Array.isArray(c.projects) ? c.projects : [], 'Every project');
      options(agent, Array.isArray(c.agents) ? c.agents : [], 'Every agent');
      options(model, Array.isArray(c.models) ? c.models : [], 'Every model');
      modelWrap.hidden = !(Array.isArray(c.models) && c.models.length);
    }
    function took(data) {
      total = typeof data.total === 'number' ? data.total : 0;
      fresh = typeof data.fresh === 'number' ? data.fresh : 0;
      spanAt = typeof data.offset === 'number' ? data.offset : 0;
      sessions = linked(data.sessions);
      state = typeof data.state === 'string' ? data.state : null;
      const here = sessions.find((s) => s.k === settings.current);
      if (here) current = here;
    }
    // The next (1) or an earlier (-1) window, added to the rows drawn.
    async function stretch(step) {
      if (!windowed || stretching || !loaded) return;
      if (step > 0 ? spanAt + sessions.length >= total : spanAt <= 0) return;
      const asked = refreshes;
      stretching = true;
      try {
        const data = await getJson(windowUrl(step));
        if (asked !== refreshes) return;
        const found = linked(data.sessions);
        total = typeof data.total === 'number' ? data.total : total;
        const now = Date.now();
        const made = found.map((s) => row(s, now));
        if (step > 0) {
          sessions = sessions.concat(found);
          more.remove();
          rows.append(...made);
        } else {
          spanAt = typeof data.offset === 'number' ? data.offset : 0;
          sessions = found.concat(sessions);
          earlier.remove();
          rows.prepend(...made);
        }
        shown = sessions;
        drawn = sessions.length;
        setMore();
        booted.then(() => remember(false));
      } catch (e) {
        status.textContent = 'Part of the session list could not be loaded.';
      } finally {
        stretching = false;
      }
    }
    // This session's row a third of the way down the list's box (the list scrolls, not the page).
    function showCurrent() {
      const here = rows.querySelector('a[aria-current=page]');
      if (!here) return;
      rows.scrollTop += here.getBoundingClientRect().top - rows.getBoundingClientRect().top - rows.clientHeight / 3;
    }
    async function fetchWindow(how) {
      const asked = ++refreshes;
      try {
        const reply = early || getJson(windowUrl(how));
        early = null;
        const data = await reply;
        if (asked !== refreshes) return;
        took(data);
        chosen(data);
      } catch (e) {
        if (asked === refreshes) status.textContent = 'The session list could not be loaded.';
        return;
      }
      const first = !loaded;
      loaded = true;
      draw(true);
      if (first || how === 'first') showCurrent();
      if (first) { // the filters' choices, once the first rows are drawn
        getJson(windowUrl('choices')).then((data) => { if (asked === refreshes) chosen(data); }, () => {});
      }
      booted.then(() => remember(first));
    }

    async function fetchList() {
      if (windowed) return fetchWindow(loaded ? 'again' : 'first');
      const asked = ++refreshes;
      let more = [];
      try {
        const reply = early || getJson(dataUrl.href);
        early = null;
        const data = await reply;
        if (asked !== refreshes) return;
        sessions = linked(data.sessions);
        more = Array.isArray(data.more) ? data.more : [];
        state = typeof data.state === 'string' ? data.state : null;
      } catch (e) {
        if (asked === refreshes) status.textContent = 'The session list could not be loaded.';
        return;
      }
      current = sessions.find((s) => s.k === settings.current) || null;
      const first = !loaded;
      loaded = true;
      options(project, list.choices(sessions, (s) => s.p), 'Every project');
      options(agent, list.choices(sessions, (s) => s.a), 'Every agent');
      options(model, list.choices(sessions, (s) => s.m), 'Every model');
      modelWrap.hidden = !sessions.some((s) => s.m && s.m.length);
      draw(true);
      if (more.length) {
        try { await loadMore(more, asked); } catch (e) { status.textContent = 'Part of the session list could not be loaded.'; }
        if (asked !== refreshes) return;
      }
      // Every part of the list in: the baselines of what grew (this page's entries known once the viewer booted).
      booted.then(() => remember(first));
    }

    for (const box of [scope, project, agent, model, dates[0][1], dates[1][1]]) {
      box.addEventListener('change', () => (windowed ? fetchWindow('first') : draw(false)));
    }

    function go(step) {
      const { prev, next } = list.neighbours(shown, settings.current);
      const to = step < 0 ? prev : next;
      if (to) location.href = to.h;
    }
    doc.addEventListener('keydown', (e) => {
      if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
      if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
        e.preventDefault();
        go(e.key === 'ArrowUp' ? -1 : 1);
      }
    });

    // Run before the page's data (with a streamed page's first chunk): the list is fetched and drawn
    // at once; the viewer redraws the sidebar when it boots, so the pane is put back first then.
    const booted = new Promise((resolve) => {
      const wait = () => {
        const viewer = window.sessiontree;
        if (viewer && viewer.ready) viewer.ready.then(resolve, resolve);
        else if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', wait, { once: true });
        else resolve(false);
      };
      wait();
    });
    booted.then(() => {
      if (side.firstChild !== pane) {
        side.prepend(pane); // moved: the list's scroll is lost
        if (windowed && loaded) showCurrent();
      }
      markUnseen();
    });
    refresh();
    if (POLL_MS > 0) {
      setInterval(() => { if (!doc.hidden) refresh(); }, POLL_MS);
    }
    // A server pushes its listing's state (a hidden page asks again when it is shown).
    doc.addEventListener('st-sessions-changed', (e) => {
      if (!doc.hidden) told((e.detail && e.detail.state) || '');
    });
    doc.addEventListener('visibilitychange', () => { if (!doc.hidden) refresh(); });
  };
  if (document.hidden || !window.requestAnimationFrame) start();
  else requestAnimationFrame(() => setTimeout(start, 0));
})();
