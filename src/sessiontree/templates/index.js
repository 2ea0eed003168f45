// sessiontree index: filter box over titles, folders and first prompts; live dots age out; times
// in the reader's zone (local-time.js before it).
(function () {
  'use strict';
  const LIVE_MS = 60000;
  const doc = document;
  const input = doc.getElementById('st-filter');
  const groups = doc.getElementById('st-groups');
  const none = doc.getElementById('st-no-match');

  function terms() {
    return input.value.toLowerCase().split(/\s+/).filter(Boolean);
  }

  // An item shows when it or one of its subagents matches every term (a group's cwd counts too).
  function applyItem(li, ts, cwd) {
    const own = ts.every((t) => cwd.includes(t) || (li.getAttribute('data-search') || '').includes(t));
    let child = false;
    for (const sub of li.querySelectorAll(':scope > .st-subagents > .st-session')) {
      if (applyItem(sub, ts, cwd)) child = true;
    }
    const shown = own || child;
    li.hidden = !shown;
    return shown;
  }

  function applyFilter() {
    if (typeof localTime === 'object') localTime.localize(groups); // rows a live update swapped in too
    const ts = terms();
    let any = false;
    for (const group of groups.querySelectorAll('.st-group')) {
      const cwd = (group.getAttribute('data-cwd') || '').toLowerCase();
      let shown = false;
      for (const li of group.querySelectorAll(':scope > .st-sessions > .st-session')) {
        if (applyItem(li, ts, cwd)) shown = true;
      }
      group.hidden = !shown;
      if (shown) any = true;
    }
    none.hidden = any || !groups.querySelector('.st-group');
  }

  function ageDots() {
    const now = Date.now();
    for (const li of groups.querySelectorAll('.st-session')) {
      const dot = li.querySelector(':scope > .st-live');
      if (dot) dot.classList.toggle('st-on', now - Number(li.getAttribute('data-mtime')) < LIVE_MS);
    }
  }

  input.addEventListener('input', applyFilter);
  setInterval(ageDots, 5000);
  applyFilter();
  window.sessiontreeIndex = { applyFilter, ageDots };
})();
