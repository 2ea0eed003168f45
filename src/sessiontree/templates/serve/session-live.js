/* sessiontree serve: a session page that follows its file. Appended entries arrive as "append"
 * events and go through window.sessiontree.appendEntry (templates/viewer/live.js); a rewritten or
 * replaced file ("replaced") reloads the page at the same leaf, entry, filter and search. Also
 * adds the download links and turns artifact:// and agent:// references into links. Added only
 * by the server, after the viewer and live.js. */
(() => {
  'use strict';
  const cfg = window.sessiontreeServe;
  const viewer = window.sessiontree;
  if (!cfg || !viewer) return;
  const doc = document;
  const root = doc.documentElement;
  // The state the page's data was rendered from (generation, entry count, unreadable lines): known
  // only once the session was read whole, after the first screen went out, so it follows the data.
  const stateNode = doc.getElementById('st-serve-state');
  try { Object.assign(cfg, JSON.parse(stateNode ? stateNode.textContent : '{}')); } catch (_) { /* kept as given */ }
  const placeKey = 'st-place:' + cfg.key;
  let count = cfg.count;
  let events = null;
  let reloading = false;

  function el(tag, attrs, text) {
    const node = doc.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text != null) node.textContent = text;
    return node;
  }

  function addLinks() {
    const header = doc.getElementById('st-header');
    if (!header) return;
    const bar = el('nav', { class: 'st-serve-links', 'aria-label': 'Session files' });
    // The pages' bar above already links every session (#st-home): no second "All sessions".
    if (!doc.getElementById('st-home')) bar.append(el('a', { href: cfg.index }, 'All sessions'), ' · ');
    bar.append(el('a', { href: cfg.raw, download: '' }, 'Raw JSONL'), ' · ',
      el('a', { href: cfg.export, download: '' }, 'Standalone HTML'));
    header.prepend(bar);
    if (cfg.badLines > 0) {
      header.append(el('p', { class: 'st-serve-notice', role: 'status' },
        cfg.badLines + ' line' + (cfg.badLines === 1 ? '' : 's') + ' of this file could not be read; everything readable is shown.'));
    }
  }

  function notice(text) {
    let n = doc.getElementById('st-serve-status');
    if (!n) {
      n = el('p', { id: 'st-serve-status', class: 'st-serve-notice', role: 'status' });
      const header = doc.getElementById('st-header');
      if (header) header.append(n);
    }
    n.textContent = text;
  }

  // artifact://N and agent://Id references (shown as code) become links to the session's artifact folder.
  const REF = /^(artifact|agent):\/\/[A-Za-z0-9_.\-/?=[\]]+$/;
  function linkRefs(scope) {
    for (const code of scope.querySelectorAll('code')) {
      if (code.parentElement && code.parentElement.closest('a, pre')) continue;
      const text = code.textContent.trim();
      if (!REF.test(text)) continue;
      const a = el('a', { href: cfg.artifacts + '?u=' + encodeURIComponent(text), class: 'st-artifact-link', target: '_blank', rel: 'noopener' });
      code.replaceWith(a);
      a.append(code);
    }
  }

  function watchRefs() {
    const msgs = doc.getElementById('st-messages');
    if (!msgs) return;
    linkRefs(msgs);
    new MutationObserver((records) => {
      for (const r of records) for (const node of r.addedNodes) if (node.nodeType === 1) linkRefs(node);
    }).observe(msgs, { childList: true, subtree: true });
  }

  // The reader's place: leaf, the first entry on screen, filter and search.
  function place() {
    const main = doc.getElementById('st-main');
    let anchor = null;
    if (main) {
      const top = main.getBoundingClientRect().top;
      for (const art of doc.querySelectorAll('#st-messages article.st-entry[data-id]')) {
        if (art.getBoundingClientRect().bottom > top + 1) { anchor = art.getAttribute('data-id'); break; }
      }
    }
    const search = doc.getElementById('st-search');
    return { leaf: viewer.leafId, anchor, filter: viewer.filter, search: search ? search.value : '' };
  }

  function reloadKeepingPlace(reason) {
    if (reloading) return;
    reloading = true;
    const p = place();
    try { sessionStorage.setItem(placeKey, JSON.stringify(p)); } catch (_) { /* storage unavailable */ }
    if (events) events.close();
    root.setAttribute('data-st-replaced', String(reason || 'replaced'));
    location.replace(viewer.link(p.anchor));
  }

  function restorePlace() {
    let p = null;
    try { p = JSON.parse(sessionStorage.getItem(placeKey) || 'null'); sessionStorage.removeItem(placeKey); } catch (_) { p = null; }
    if (!p || typeof p !== 'object') return;
    if (typeof p.filter === 'string' && p.filter !== viewer.filter) {
      const b = doc.querySelector('#st-filters button[data-filter="' + CSS.escape(p.filter) + '"]');
      if (b) b.click();
    }
    const search = doc.getElementById('st-search');
    if (search && typeof p.search === 'string' && p.search) {
      search.value = p.search;
      search.dispatchEvent(new Event('input', { bubbles: true }));
    }
  }

  // Whether the reader is at the bottom, as of their last scroll: entries laid out later (or
  // taking their real height as they come into view) must not make a reader at the end "not at
  // the end" before the next entry arrives.
  const main = doc.getElementById('st-main');
  let atBottom = false;
  function measure() { atBottom = !!main && main.scrollHeight - main.scrollTop - main.clientHeight < 80; }
  function follow() {
    if (!main || !atBottom) return;
    main.scrollTop = main.scrollHeight;
    requestAnimationFrame(() => { if (atBottom) main.scrollTop = main.scrollHeight; });
  }

  function onAppend(ev) {
    let data;
    try { data = JSON.parse(ev.data); } catch (_) { return; }
    if (!data || !Array.isArray(data.entries) || data.generation !== cfg.generation) { reloadKeepingPlace('generation'); return; }
    const start = data.count - data.entries.length;
    if (start > count) { reloadKeepingPlace('gap'); return; }
    const wasBottom = atBottom;
    let followed = false;
    for (let k = Math.max(0, count - start); k < data.entries.length; k++) {
      const [meta, html, images] = data.entries[k];
      viewer.appendEntry(meta, html, images);
      if (meta && viewer.leafId === String(meta.id)) followed = true;
    }
    atBottom = wasBottom;
    if (followed) follow();
    if (data.labels && viewer.hook && viewer.hook.relabel) {
      for (const [id, label] of Object.entries(data.labels)) viewer.hook.relabel(id, label);
    }
    count = Math.max(count, data.count);
    root.setAttribute('data-st-count', String(count));
  }

  function connect() {
    const url = cfg.events + '?g=' + encodeURIComponent(cfg.generation) + '&n=' + encodeURIComponent(String(count));
    events = new EventSource(url);
    events.addEventListener('append', onAppend);
    events.addEventListener('replaced', () => reloadKeepingPlace('replaced'));
    events.addEventListener('removed', () => notice('This session file was removed or renamed.'));
    // The served folders' listing as it is now (first, then at each change): the sessions pane
    // fetches its list again unless it has that state already.
    events.addEventListener('sessions', (ev) => {
      let data = null;
      try { data = JSON.parse(ev.data); } catch (_) { /* no state: the pane asks again */ }
      const state = data && typeof data.state === 'string' ? data.state : null;
      document.dispatchEvent(new CustomEvent('st-sessions-changed', { detail: { state } }));
    });
    events.addEventListener('open', () => root.setAttribute('data-st-live', 'open'));
    events.addEventListener('error', () => {
      // The browser reconnects by itself; it must then ask from the current count, not the first.
      root.setAttribute('data-st-live', 'retrying');
      if (events.readyState === EventSource.CLOSED && !reloading) setTimeout(connect, 1000);
    });
  }

  addLinks();
  viewer.ready.then((ok) => {
    if (!ok) return;
    restorePlace();
    watchRefs();
    if (main) { main.addEventListener('scroll', measure, { passive: true }); measure(); }
    root.setAttribute('data-st-count', String(count));
    if (window.EventSource) connect();
  });
})();
