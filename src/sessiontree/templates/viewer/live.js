/* sessiontree live page: window.sessiontree.appendEntry(meta, html, images) grows the page as the
 * session grows. Added only to served pages (PageOptions.extra_scripts = (live_script(), ...)), after
 * the viewer; an exported or shared file never carries it. Built on the viewer's hook
 * (window.sessiontree.hook, see docs/architecture.md). */
(() => {
  'use strict';
  const viewer = window.sessiontree;
  if (!viewer || !viewer.hook) return;
  // Entries that arrive before the viewer has booted wait here, in order.
  const queue = [];
  let booted = false;

  // meta: as in st-data "entries"; html: its fragment; images: sha256 -> URL, merged into the page's.
  // If its parent is the current leaf, the leaf moves to it (the reader follows the live session).
  function appendEntry(meta, html, images) {
    if (!booted) { queue.push([meta, html, images]); return; }
    if (!meta || typeof meta !== 'object') return;
    const index = viewer.hook.addEntry(meta, html, images);
    viewer.hook.followEntry(index);
    viewer.hook.refreshTree();
  }

  viewer.appendEntry = appendEntry;
  viewer.ready.then((ok) => {
    if (!ok) return;
    booted = true;
    for (const args of queue.splice(0)) appendEntry(...args);
  });
})();
