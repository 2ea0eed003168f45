/* sessiontree serve: the open index follows the folder (sessions appear, disappear, move, their
 * live dots and counts update) from the server's "index" events. Added only by the server. */
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
    if (typeof data.html !== 'string') return;
    // Our own template's output (every session string escaped by the server), never session HTML.
    groups.innerHTML = data.html;
    if (summary && typeof data.summary === 'string') summary.textContent = data.summary;
    if (window.sessiontreeIndex) window.sessiontreeIndex.applyFilter();
    document.documentElement.setAttribute('data-st-updates', String(++updates));
  });
  events.addEventListener('open', () => document.documentElement.setAttribute('data-st-live', 'open'));
  events.addEventListener('error', () => document.documentElement.setAttribute('data-st-live', 'retrying'));
})();
