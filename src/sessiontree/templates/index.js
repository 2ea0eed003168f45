// sessiontree index: filter box over titles, folders and first prompts, a sort (last activity,
// created, size, prompts) and agent / project filters; live dots age out; times in the reader's
// zone (local-time.js before it).
(function () {
  'use strict';
  const LIVE_MS = 60000;
  const doc = document;
  const input = doc.getElementById('st-filter');
  const groups = doc.getElementById('st-groups');
  const none = doc.getElementById('st-no-match');

  const sortBox = doc.getElementById('st-sort');
  const agentBox = doc.getElementById('st-agent-filter');
  const projectBox = doc.getElementById('st-project-filter');

  function terms() {
    return input.value.toLowerCase().split(/\s+/).filter(Boolean);
  }

  // A row's value for the sort chosen (data-mtime, -created, -size, -prompts; larger first).
  function sortKey(li, by) {
    return Number(li.getAttribute('data-' + by)) || 0;
  }

  // Rows in each project by the sort chosen, projects by their first row (stable: ties keep the
  // server's order, newest first).
  function sortRows() {
    const by = sortBox ? sortBox.value : 'mtime';
    const order = [];
    for (const group of groups.querySelectorAll(':scope > .st-group')) {
      const list = group.querySelector(':scope > .st-sessions');
      const rows = [...list.children].map((li, i) => [sortKey(li, by), i, li]);
      rows.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
      list.append(...rows.map((r) => r[2]));
      order.push([rows.length ? rows[0][0] : 0, order.length, group]);
    }
    order.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    groups.append(...order.map((g) => g[2]));
  }

  // An item shows when it or one of its subagents matches every term and the agent chosen (a
  // group's cwd counts for the terms too).
  function applyItem(li, ts, cwd, agent) {
    const own = (!agent || li.getAttribute('data-agent') === agent) &&
      ts.every((t) => cwd.includes(t) || (li.getAttribute('data-search') || '').includes(t));
    let child = false;
    for (const sub of li.querySelectorAll(':scope > .st-subagents > .st-session')) {
      if (applyItem(sub, ts, cwd, agent)) child = true;
    }
    const shown = own || child;
    li.hidden = !shown;
    return shown;
  }

  function applyFilter() {
    if (typeof localTime === 'object') localTime.localize(groups); // rows a live update swapped in too
    sortRows();
    const ts = terms();
    const agent = agentBox ? agentBox.value : '';
    const project = projectBox ? projectBox.value : '';
    let any = false;
    for (const group of groups.querySelectorAll('.st-group')) {
      const raw = group.getAttribute('data-cwd') || '';
      let shown = false;
      if (!project || raw === project) {
        for (const li of group.querySelectorAll(':scope > .st-sessions > .st-session')) {
          if (applyItem(li, ts, raw.toLowerCase(), agent)) shown = true;
        }
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
  for (const box of [sortBox, agentBox, projectBox]) if (box) box.addEventListener('change', applyFilter);
  setInterval(ageDots, 5000);
  applyFilter();
  window.sessiontreeIndex = { applyFilter, ageDots };
})();
