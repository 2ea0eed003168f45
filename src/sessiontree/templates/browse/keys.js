/* sessiontree: the keys of every page of a collection (serve, a built site): Ctrl-K (or Cmd-K)
 * opens the search page (with the index's filter text as its query); on the index `/` goes to the
 * filter box, which searches every message. Where the search page is comes from the page's
 * window.sessiontreeBrowse.search (our server's route or a site-relative path). */
(() => {
  'use strict';
  const settings = window.sessiontreeBrowse || {};
  const doc = document;
  const filter = doc.getElementById('st-filter');
  const typing = (el) => !!el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));

  doc.addEventListener('keydown', (e) => {
    if (e.defaultPrevented) return;
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') {
      const box = doc.getElementById('st-q');
      if (box) { e.preventDefault(); box.focus(); box.select(); return; }
      if (!settings.search) return;
      e.preventDefault();
      const q = filter && filter.value.trim();
      location.href = settings.search + (q ? '?q=' + encodeURIComponent(q) : '');
    } else if (e.key === '/' && filter && !typing(e.target) && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      filter.focus();
      filter.select();
    }
  });
})();
