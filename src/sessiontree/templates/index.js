// sessiontree index: filter box over titles, folders and first prompts, a sort (last activity,
// created, size, prompts) and agent / project filters; live dots age out; times in the reader's
// zone (local-time.js before it); a live update's new agent or project is offered in the filters
// (index-choices.js before it). A paged index (#st-groups' data-rows, served) carries its first
// rows: the server sorts and filters them the same way, and sends the next window when the "more"
// button comes into view (or is pressed), the first one again when the sort or a filter changes.
// A built site's paged index (data-chunks, the files named in data-chunk-list in order) fetches the
// next file of rows the same way, and every one of them before it sorts or filters otherwise than
// the first window (there is no server).
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
  const rowsUrl = groups.getAttribute('data-rows');
  const chunks = groups.getAttribute('data-chunks');
  const chunkList = (groups.getAttribute('data-chunk-list') || '').split(' ').filter(Boolean);
  const more = doc.getElementById('st-more');
  let next = groups.getAttribute('data-next') || '';
  let asked = 0; // the last request sent: an older answer is dropped
  let loading = false;
  let pushed = false; // a live change merged while rows were on their way (they may be older)
  let typing = 0;
  let watcher = null; // the "more" button's IntersectionObserver
  let unreachable = false; // a built site opened from a file: its other rows cannot be fetched

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
    const filtering = ts.length > 0 || agent !== '' || project !== '';
    const paged = rowsUrl ? !filtering : chunks ? !filtering || next !== '' : !groups.querySelector('.st-group');
    none.hidden = any || paged;
  }

  // Whether the rows shown are other than the first window's order: a site's every row is needed.
  function wantsAll() {
    const sorted = sortBox && sortBox.value !== 'mtime';
    return Boolean(sorted || terms().length || (agentBox && agentBox.value) || (projectBox && projectBox.value));
  }

  function topRows() {
    return groups.querySelectorAll(':scope > .st-group > .st-sessions > .st-session');
  }

  function rowOf(key) {
    for (const li of topRows()) if (li.getAttribute('data-key') === key) return li;
    return null;
  }

  function groupOf(cwd) {
    for (const g of groups.querySelectorAll(':scope > .st-group')) if (g.getAttribute('data-cwd') === cwd) return g;
    return null;
  }

  // Rows of our own template's HTML (every session string escaped by the server, never session
  // HTML) into the page: a row already there is replaced, a new one joins its project's group
  // (or its group is added); ``gone`` names rows that left. Then sorted and filtered again.
  function merge(html, gone) {
    for (const key of gone || []) {
      const li = rowOf(key);
      if (li) li.remove();
    }
    const box = doc.createElement('div');
    box.innerHTML = html;
    const arrived = rowsOffered(box); // before the rows move into the page
    for (const section of [...box.querySelectorAll(':scope > .st-group')]) {
      const target = groupOf(section.getAttribute('data-cwd') || '');
      for (const li of [...section.querySelectorAll(':scope > .st-sessions > .st-session')]) {
        const old = rowOf(li.getAttribute('data-key'));
        if (old && target && old.closest('.st-group') === target) { old.replaceWith(li); continue; }
        if (old) old.remove();
        if (target) target.querySelector(':scope > .st-sessions').append(li);
      }
      if (!target) groups.append(section);
    }
    for (const g of groups.querySelectorAll(':scope > .st-group')) {
      if (!g.querySelector(':scope > .st-sessions > .st-session')) g.remove();
    }
    offerChoices(arrived);
    applyFilter();
  }

  // What rows offer the filters (read before they move: a row's project is its group's).
  function rowsOffered(box) {
    return [...box.querySelectorAll('.st-session')].map((li) => ({
      agent: li.getAttribute('data-agent') || '',
      agentLabel: (li.querySelector(':scope > .st-meta > .st-agent') || {}).textContent || '',
      cwd: (li.closest('.st-group') || li).getAttribute('data-cwd') || '',
      readable: !li.classList.contains('st-unreadable'),
    }));
  }

  // A new agent's or project's rows bring their choice to the filters (index-choices.js).
  function offerChoices(rows) {
    if (typeof indexChoices !== 'object') return;
    const found = indexChoices.offered(rows);
    for (const [select, kind] of [[agentBox, 'agents'], [projectBox, 'projects']]) {
      if (!select) continue;
      const all = [...select.options].slice(1).map((o) => [o.value, o.textContent]);
      const choices = indexChoices.merged(all, found[kind], kind);
      if (!choices) continue;
      const chosen = select.value;
      select.replaceChildren(select.options[0], ...choices.map(([value, label]) => new Option(label, value)));
      select.value = chosen;
    }
  }

  function query(offset, limit) {
    const params = new URLSearchParams({ sort: sortBox ? sortBox.value : 'mtime', q: input.value, offset, limit });
    if (agentBox && agentBox.value) params.set('agent', agentBox.value);
    if (projectBox && projectBox.value) params.set('project', projectBox.value);
    return rowsUrl + '?' + params;
  }

  // One window of rows from the server (or a site's file, ``after`` it the next file's name):
  // appended, or in place of every row (``fresh``).
  async function load(url, fresh, after) {
    const n = ++asked;
    loading = true;
    pushed = false; // asked now: this answer is at least as new as what was pushed so far
    doc.documentElement.setAttribute('data-st-rows', 'loading');
    try {
      const answer = await fetch(url, { headers: { Accept: 'application/json' } });
      const data = answer.ok ? await answer.json() : null;
      if (n !== asked || !data || typeof data.html !== 'string') return;
      if (fresh) groups.replaceChildren();
      if (after !== undefined) next = after; // before the filter runs
      else next = data.next === null || data.next === undefined ? '' : String(data.next);
      merge(data.html, []);
      if (typeof data.state === 'string' && fresh) groups.setAttribute('data-state', data.state);
    } catch (_) {
      if (chunks) unreachable = true; // from a file (no fetch there): the rows shown stay
      return; // the server stopped: the rows shown stay
    } finally {
      if (n === asked) {
        loading = false;
        if (more) more.hidden = !next;
        if (more && unreachable) more.textContent = 'More sessions show when the site is served over HTTP';
        doc.documentElement.setAttribute('data-st-rows', chunks && next && wantsAll() && !unreachable ? 'loading' : 'done');
      }
    }
    if (n === asked && pushed) {
      // A change pushed while these rows were on their way: the server may have listed them
      // before it, and they took the pushed rows' place. Asked again, they are as new as it.
      reload();
      return;
    }
    if (chunks && next && wantsAll()) loadMore(); // to sort or filter, every row
    else if (n === asked && watcher && more && !more.hidden) {
      watcher.unobserve(more); // a short window leaves the button in view: no new event comes,
      watcher.observe(more); // but observing again reports where it is now
    }
  }

  // A live change (serve's index events): merged at once, and the rows loading asked for again.
  function mergePushed(html, gone) {
    if (loading) pushed = true;
    merge(html, gone);
  }

  function loadMore() {
    if (!next || loading || unreachable) return;
    if (rowsUrl) load(query(Number(next), 200), false);
    else if (chunks) load(chunks.replace('{}', next), false, chunkList[chunkList.indexOf(next) + 1] || '');
  }

  // The rows shown again from the server, as many as are shown now (a live page that missed changes).
  function reload() {
    if (rowsUrl) load(query(0, Math.min(500, Math.max(100, topRows().length))), true);
  }

  function changed() {
    applyFilter(); // the rows shown now at once, then the server's answer
    if (chunks && wantsAll()) loadMore();
    if (!rowsUrl) return;
    clearTimeout(typing);
    typing = setTimeout(() => load(query(0, 100), true), 150);
  }

  function ageDots() {
    const now = Date.now();
    for (const li of groups.querySelectorAll('.st-session')) {
      const dot = li.querySelector(':scope > .st-live');
      if (dot) dot.classList.toggle('st-on', now - Number(li.getAttribute('data-mtime')) < LIVE_MS);
    }
  }

  input.addEventListener('input', changed);
  for (const box of [sortBox, agentBox, projectBox]) if (box) box.addEventListener('change', changed);
  if (more) {
    more.addEventListener('click', loadMore);
    if (window.IntersectionObserver) {
      watcher = new IntersectionObserver((seen) => { if (seen.some((s) => s.isIntersecting)) loadMore(); },
        { rootMargin: '800px 0px' });
      watcher.observe(more);
    }
  }
  setInterval(ageDots, 5000);
  applyFilter();
  window.sessiontreeIndex = { applyFilter, ageDots, merge: mergePushed, reload };
})();
