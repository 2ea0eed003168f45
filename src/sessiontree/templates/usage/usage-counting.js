// serve's usage page while its totals are still being counted (#st-usage's data-counting): it
// follows serve's count over its event stream (data-events: "usage" events, how many files are
// left, -1 while the files are still being listed), shows how many are left, and loads itself
// again once the files are listed and once every one is counted, at the same URL with its hash,
// so the filters chosen meanwhile stay chosen. Never on a timer: a reload every 2 s made the
// answers again while the pass it waits for counted.
(function () {
  'use strict';
  const main = document.getElementById('st-usage');
  if (!main || !main.hasAttribute('data-counting')) return;
  const url = main.getAttribute('data-events');
  if (!url || !window.EventSource) return;
  const listing = main.getAttribute('data-counting') === 'unlisted';
  const left = document.getElementById('st-uncounted');
  const events = new EventSource(url);
  let reloading = false;
  events.addEventListener('open', () => main.setAttribute('data-live', 'open'));
  events.addEventListener('usage', (ev) => {
    let data;
    try { data = JSON.parse(ev.data); } catch (_) { return; }
    const count = Number(data.left);
    if (!Number.isInteger(count) || reloading) return;
    main.setAttribute('data-left', String(count));
    if (count === 0 || (listing && count > 0)) {
      reloading = true;
      events.close();
      location.reload();
    } else if (count > 0 && left) {
      left.textContent = `${count.toLocaleString('en-US')} ${count === 1 ? 'session is' : 'sessions are'}`;
    }
  });
})();
