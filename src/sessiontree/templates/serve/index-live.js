/* sessiontree serve: the open index follows the folder (sessions appear, disappear, move, their
 * live dots and counts update) from the server's "index" events: each carries the rows that
 * changed (html) and the keys of those that left (gone). The first event of a stream says what
 * the listing is (state): a page made from another listing asks for its rows again. Added only
 * by the server. */
(() => {
  'use strict';
  const groups = document.getElementById('st-groups');
  const summary = document.getElementById('st-summary');
  const urls = window.sessiontreeServe;
  if (!groups || !urls || !window.EventSource) return;
  let updates = 0;
  const events = new EventSource(urls.events);
  events.addEventListener('index', (ev) => {
    let data;
    try { data = JSON.parse(ev.data); } catch (_) { return; }
    const index = window.sessiontreeIndex;
    if (typeof data.html !== 'string' || !index) return;
    if (summary && typeof data.summary === 'string') summary.textContent = data.summary;
    if (data.first) {
      if (data.state !== groups.getAttribute('data-state')) index.reload();
    } else {
      index.merge(data.html, Array.isArray(data.gone) ? data.gone : []);
      if (typeof data.state === 'string') groups.setAttribute('data-state', data.state);
    }
    document.documentElement.setAttribute('data-st-updates', String(++updates));
  });
  events.addEventListener('open', () => document.documentElement.setAttribute('data-st-live', 'open'));
  events.addEventListener('error', () => document.documentElement.setAttribute('data-st-live', 'retrying'));
})();
