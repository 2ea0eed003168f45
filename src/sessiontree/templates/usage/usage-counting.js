// serve's usage page while its totals are still being counted (#st-usage's data-counting): the
// page loads itself again every data-reload seconds until every session is counted, at the same
// URL with its hash, so the filters chosen meanwhile stay chosen (a meta refresh drops the hash).
(function () {
  'use strict';
  const main = document.getElementById('st-usage');
  if (!main || !main.hasAttribute('data-counting')) return;
  const seconds = Number(main.getAttribute('data-reload')) || 2;
  setTimeout(() => location.reload(), seconds * 1000);
})();
