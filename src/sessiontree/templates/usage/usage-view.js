/* Usage dashboard (DOM): the filters, and each panel drawn from usageData.view() on every change;
 * the sessions a filter keeps asked of serve's API (same origin, a page at a time) when the page
 * does not carry them. Every name from a session is set as text, never as markup; the state lives
 * in the URL's hash. */
(() => {
  const D = usageData;
  const SVG = 'http://www.w3.org/2000/svg';
  const $ = (id) => document.getElementById(id);
  const main = $('st-usage');
  let data = null;
  try {
    data = D.decode(JSON.parse($('st-usage-data').textContent));
  } catch (_) { data = null; }
  if (!data) {
    $('st-empty').hidden = false;
    $('st-empty').textContent = 'The usage data of this page cannot be read.';
    return;
  }

  function el(tag, attrs, text) {
    const node = tag.startsWith('svg:') ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // A cost, short, with every model without a price named on hover.
  function costCell(tag, total) {
    const cell = el(tag, {}, D.costShort(total));
    if (total.unpriced.length || total.zero.length) cell.title = D.costText(total);
    return cell;
  }

  function fillSelect(select, values, labels) {
    values.forEach((value, k) => select.append(el('option', { value }, labels ? labels[k] : value)));
  }

  const controls = { from: $('st-from'), to: $('st-to'), project: $('st-project'), agent: $('st-agent'), model: $('st-model'), by: $('st-by'), measure: $('st-measure') };
  fillSelect(controls.project, [...data.projects].sort());
  fillSelect(controls.agent, data.agents, data.agentLabels);
  fillSelect(controls.model, [...data.models].sort());
  if (data.days.length) {
    for (const c of [controls.from, controls.to]) { c.min = data.days[0]; c.max = data.days[data.days.length - 1]; }
  }

  // The zone the days are in, named, its offset from UTC now on hover.
  const offset = -new Date().getTimezoneOffset();
  const hhmm = (m) => String(Math.floor(m / 60)).padStart(2, '0') + ':' + String(m % 60).padStart(2, '0');
  $('st-zone').textContent = data.zone;
  $('st-zone').title = 'UTC' + (offset < 0 ? '−' : '+') + hhmm(Math.abs(offset)) + ' now';

  let state = D.parseState(location.hash);
  let shown = null;
  let from = 0; // the first of the top sessions shown (serve's pages)
  const answers = new Map();
  let asked = null;

  // The sessions the filters keep from `from`: carried by the page, asked for before (the same
  // query), or undefined while serve's API is asked (the panels are drawn again when it answers).
  function listedNow(filters) {
    const known = D.listedFor(data, filters);
    if (known === null && data.chunks) return fromChunks(filters);
    if (!data.api || (known !== undefined && from === 0)) return known;
    const query = D.sessionsQuery(data, filters, from);
    if (query === null) return { count: 0, offset: 0, top: [] };
    if (answers.has(query)) return answers.get(query);
    ask(query);
    return undefined;
  }

  // A built site's sessions of a date range or two filters: ranked here from its files of sessions
  // by month (usage-chunks.js), only the months the range covers fetched, each once; undefined
  // while they come, null when they cannot (opened from a file: a page there fetches nothing).
  const C = usageChunks;
  const chunks = new Map(); // month -> 'asking', 'failed' or the file as read
  const ranked = new Map(); // the filters (JSON) -> their sessions ranked
  let unlisted = '';
  function fromChunks(filters) {
    if (location.protocol === 'file:') {
      unlisted = 'Opened from a file, this page lists the top sessions over every day and for one project, agent or model at a time (served over HTTP, it lists them for any filters).';
      return null;
    }
    const key = JSON.stringify(filters);
    if (ranked.has(key)) return ranked.get(key);
    const months = C.chunksFor(data, filters) || [];
    for (const month of months) if (!chunks.has(month)) fetchChunk(month);
    const states = months.map((m) => chunks.get(m));
    if (states.includes('failed')) {
      unlisted = 'The files of this site\'s sessions could not be read; change a filter to try again.';
      for (const m of months) if (chunks.get(m) === 'failed') chunks.delete(m);
      return null;
    }
    if (states.includes('asking')) return undefined;
    const listed = C.rank(data, states, filters, data.pageSize);
    ranked.set(key, listed);
    if (ranked.size > 200) ranked.delete(ranked.keys().next().value);
    return listed;
  }

  function fetchChunk(month) {
    chunks.set(month, 'asking');
    fetch(C.chunkName(month), { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
      .then((reply) => (reply.ok ? reply.json() : Promise.reject(new Error(String(reply.status)))))
      .then((raw) => C.decodeChunk(raw) || Promise.reject(new Error('not a file of sessions')))
      .then((chunk) => { chunks.set(month, chunk); })
      .catch(() => { chunks.set(month, 'failed'); })
      .then(() => { if (![...chunks.values()].includes('asking')) draw(); });
  }

  function ask(query) {
    if (asked === query) return;
    asked = query;
    fetch(data.api + '?' + query, { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
      .then((reply) => (reply.ok ? reply.json() : Promise.reject(new Error(String(reply.status)))))
      .then((raw) => {
        answers.set(query, D.decodeListed(raw) || { count: 0, offset: 0, top: [] });
        if (answers.size > 200) answers.delete(answers.keys().next().value);
        if (asked === query) { asked = null; draw(); }
      })
      .catch(() => {
        if (asked !== query) return;
        asked = null;
        $('st-top-note').textContent = 'The server did not answer with the sessions of these filters; change a filter to ask again.';
      });
  }

  function measureText(value, measure) {
    return measure === 'tokens' ? D.formatTokens(value) + ' tokens' : D.dollars(value);
  }

  // `listed`: the sessions the filters keep (undefined while asked for, null when this page cannot list them).
  function drawTotals(t, listed) {
    const list = $('st-totals');
    list.replaceChildren();
    const items = [
      ['Cost', null], ['Input', D.formatCount(t.input)], ['Output', D.formatCount(t.output)],
      ['Cache read', D.formatCount(t.cacheRead)], ['Cache write', D.formatCount(t.cacheWrite)],
      ['Cache hit ratio', D.percent(t.hitRatio)], ['Sessions', listed === undefined ? '…' : listed === null ? '-' : D.formatCount(t.sessions)],
      ['Active days', D.formatCount(t.activeDays)], ['Assistant messages', D.formatCount(t.messages)],
    ];
    for (const [name, value] of items) {
      const item = el('div', { 'data-total': name });
      item.append(el('dt', {}, name), value === null ? costCell('dd', t) : el('dd', {}, value));
      list.append(item);
    }
    const note = $('st-unpriced');
    const parts = [];
    if (t.unpriced.length) parts.push('No price is known for ' + t.unpriced.join(', ') + ': their tokens are counted, their cost is not.');
    if (t.zero.length) parts.push('Recorded as $0 though they spent tokens (the agent knew no price, or the model is free): ' + t.zero.join(', ') + '.');
    note.hidden = !parts.length;
    note.textContent = parts.join(' ');
  }

  const CHART = { w: 760, h: 240, left: 70, right: 8, top: 12, bottom: 30 };

  function niceStep(top) {
    const raw = top / 4;
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const f of [1, 2, 2.5, 5, 10]) if (power * f >= raw) return power * f;
    return power * 10;
  }

  function drawChart(s) {
    const figure = $('st-chart');
    figure.querySelectorAll('svg').forEach((n) => n.remove());
    const unitName = { day: 'day', week: 'week', month: 'month' }[s.unit];
    const what = s.measure === 'tokens' ? 'Tokens' : 'Cost';
    const total = s.groups.reduce((sum, g) => sum + g.values.reduce((a, b) => a + b, 0), 0);
    const summary = what + ' per ' + unitName + ' by ' + s.by + ': ' + measureText(total, s.measure) + ' over ' + s.buckets.length + ' ' + unitName + (s.buckets.length === 1 ? '' : 's');
    $('st-chart-caption').textContent = s.buckets.length ? summary : 'Nothing dated to draw.';
    if (!s.buckets.length) return;
    const svg = el('svg:svg', { viewBox: `0 0 ${CHART.w} ${CHART.h}`, width: CHART.w, height: CHART.h, role: 'img', 'aria-label': summary });
    svg.append(el('svg:title', {}, summary));
    const plotW = CHART.w - CHART.left - CHART.right;
    const plotH = CHART.h - CHART.top - CHART.bottom;
    const step = s.top > 0 ? niceStep(s.top) : 1;
    const scaleTop = s.top > 0 ? step * Math.max(1, Math.ceil(s.top / step - 1e-9)) : 1;
    for (let n = 0; n * step <= scaleTop + step / 1000 && n < 12; n += 1) {
      const y = CHART.top + plotH - (n * step / scaleTop) * plotH;
      svg.append(el('svg:line', { class: 'st-grid', x1: CHART.left, x2: CHART.w - CHART.right, y1: y, y2: y }));
      svg.append(el('svg:text', { class: 'st-tick', x: CHART.left - 6, y: y + 4, 'text-anchor': 'end' }, s.measure === 'tokens' ? D.formatTokens(n * step) : D.dollars(n * step)));
    }
    const slot = plotW / s.buckets.length;
    const width = Math.max(1, slot * 0.8);
    s.buckets.forEach((bucket, b) => {
      let y = CHART.top + plotH;
      s.groups.forEach((g) => {
        const value = g.values[b];
        if (value <= 0) return;
        const height = (value / scaleTop) * plotH;
        y -= height;
        const rect = el('svg:rect', { class: 'st-bar ' + (g.colour < 0 ? 'st-other' : 'st-m' + g.colour), x: (CHART.left + b * slot).toFixed(2), y: y.toFixed(2), width: width.toFixed(2), height: height.toFixed(2) });
        rect.append(el('svg:title', {}, bucket + ' · ' + g.key + ': ' + measureText(value, s.measure)));
        svg.append(rect);
      });
    });
    const every = Math.max(1, Math.ceil(s.buckets.length / 8));
    const long = s.buckets[0].slice(0, 4) !== s.buckets[s.buckets.length - 1].slice(0, 4);
    s.buckets.forEach((bucket, b) => {
      if (b % every) return;
      const label = s.unit === 'month' || long ? bucket : bucket.slice(5);
      svg.append(el('svg:text', { class: 'st-day', x: (CHART.left + b * slot + width / 2).toFixed(2), y: CHART.h - 10, 'text-anchor': 'middle' }, label));
    });
    figure.append(svg);
  }

  function drawLegend(s) {
    const legend = $('st-legend');
    legend.replaceChildren();
    for (const g of s.groups) {
      const item = el('li', {});
      item.append(el('span', { class: 'st-swatch ' + (g.colour < 0 ? 'st-other' : 'st-m' + g.colour), 'aria-hidden': 'true' }));
      item.append(document.createTextNode(g.key + ' '));
      const free = g.total.cost === 0 && g.total.zero.length;
      const priced = free ? 'recorded as $0 · ' : g.total.cost !== null ? D.costShort(g.total) + ' · ' : g.total.unpriced.length ? 'no price · ' : '';
      item.append(el('span', { class: 'st-muted' }, priced + D.formatTokens(g.total.tokens) + ' tokens'));
      legend.append(item);
    }
  }

  function drawSeriesTable(s) {
    const body = $('st-series').tBodies[0];
    body.replaceChildren();
    for (const row of s.table) {
      const tr = el('tr', {});
      tr.append(el('td', {}, row.period), el('td', {}, row.group));
      for (const f of ['messages', 'input', 'output', 'cacheRead', 'cacheWrite']) tr.append(el('td', {}, D.formatCount(row[f])));
      tr.append(costCell('td', row));
      body.append(tr);
    }
  }

  function drawTop(listed) {
    const body = $('st-top').tBodies[0];
    body.replaceChildren();
    const top = listed ? listed.top : [];
    for (const t of top) {
      const tr = el('tr', {});
      const cell = el('td', {});
      const title = t.label || '(untitled)';
      if (t.href) cell.append(el('a', { href: t.href }, title)); else cell.append(document.createTextNode(title));
      cell.append(el('div', { class: 'st-muted st-path' }, (t.agent ? t.agent + ' · ' : '') + t.key));
      tr.append(cell, el('td', {}, D.formatCount(t.messages)), el('td', {}, D.formatTokens(t.tokens)), costCell('td', t));
      body.append(tr);
    }
    const note = $('st-top-note');
    note.hidden = Boolean(listed) && listed.count > 0;
    note.textContent = listed === undefined ? 'Asking for the sessions of these filters…'
      : listed === null ? unlisted || 'This page lists the top sessions over every day and for one project, agent or model at a time (sessiontree serve lists them for any filters).'
        : 'No session for these filters.';
    const pages = $('st-top-pages');
    pages.hidden = !listed || !listed.count;
    if (listed && listed.count) {
      $('st-top-range').textContent = D.formatCount(listed.offset + 1) + '–' + D.formatCount(listed.offset + top.length) + ' of ' + D.formatCount(listed.count);
      $('st-top-prev').hidden = $('st-top-next').hidden = !data.api;
      $('st-top-prev').disabled = listed.offset <= 0;
      $('st-top-next').disabled = listed.offset + top.length >= listed.count;
    }
    main.dataset.sessions = listed === undefined ? 'asking' : listed === null ? 'unlisted' : String(listed.count);
  }

  function drawCalendar(cal) {
    const figure = $('st-calendar');
    figure.querySelectorAll('svg').forEach((n) => n.remove());
    const active = cal.days.filter((d) => d.messages > 0).length;
    const caption = cal.days.length ? active + ' active day' + (active === 1 ? '' : 's') + ' (' + data.zone + '), shaded by ' + (cal.measure === 'tokens' ? 'tokens' : 'cost') + ', ' + cal.days[0].day + ' to ' + cal.days[cal.days.length - 1].day : 'No dated usage.';
    $('st-calendar-caption').textContent = caption;
    if (!cal.days.length) return;
    const size = 12;
    const gap = 2;
    const left = 30;
    const weeks = cal.days[cal.days.length - 1].week + 1;
    const w = left + weeks * (size + gap);
    const h = 7 * (size + gap) + 16;
    const svg = el('svg:svg', { viewBox: `0 0 ${w} ${h}`, width: w, height: h, role: 'img', 'aria-label': caption });
    svg.append(el('svg:title', {}, caption));
    ['Mon', 'Wed', 'Fri'].forEach((name, k) => svg.append(el('svg:text', { class: 'st-tick', x: 0, y: 16 + (k * 2) * (size + gap) + size - 2 }, name)));
    let month = '';
    for (const d of cal.days) {
      const x = left + d.week * (size + gap);
      if (d.weekday === 0 && d.day.slice(0, 7) !== month) {
        month = d.day.slice(0, 7);
        svg.append(el('svg:text', { class: 'st-tick', x, y: 10 }, month.slice(5) === '01' || !svg.querySelector('text.st-month') ? month : month.slice(5)));
        svg.lastChild.classList.add('st-month');
      }
      const rect = el('svg:rect', { class: 'st-cell st-l' + d.level, x, y: 16 + d.weekday * (size + gap), width: size, height: size, rx: 2 });
      const text = d.total ? d.day + ': ' + (cal.measure === 'tokens' ? D.formatTokens(d.total.tokens) + ' tokens' : D.costShort(d.total)) + ', ' + D.formatCount(d.messages) + ' messages' : d.day + ': no usage';
      rect.append(el('svg:title', {}, text));
      svg.append(rect);
    }
    figure.append(svg);
  }

  function syncControls() {
    for (const [key, control] of Object.entries(controls)) control.value = state[key];
    // A value the page does not hold (an old link) is shown as "all" and dropped.
    for (const key of ['project', 'agent', 'model', 'by', 'measure']) if (controls[key].value !== state[key]) state[key] = controls[key].value;
  }

  function draw() {
    syncControls();
    unlisted = '';
    const listed = listedNow(D.filtersOf(state));
    shown = D.view(data, state, listed);
    drawTotals(shown.totals, listed);
    drawChart(shown.series);
    drawLegend(shown.series);
    drawSeriesTable(shown.series);
    drawTop(listed);
    drawCalendar(shown.calendar);
    $('st-empty').hidden = shown.totals.messages > 0;
    main.dataset.drawn = String(Number(main.dataset.drawn || 0) + 1);
  }

  function changed() {
    for (const [key, control] of Object.entries(controls)) state[key] = control.value;
    from = 0;
    const hash = D.formatState(state);
    history.replaceState(null, '', hash ? '#' + hash : location.pathname + location.search);
    draw();
  }

  for (const control of Object.values(controls)) control.addEventListener('change', changed);
  $('st-filters').addEventListener('reset', () => setTimeout(() => {
    for (const key of ['from', 'to', 'project', 'agent', 'model']) controls[key].value = '';
    changed();
  }, 0));
  window.addEventListener('hashchange', () => { state = D.parseState(location.hash); from = 0; draw(); });
  $('st-top-prev').addEventListener('click', () => { from = Math.max(0, from - data.pageSize); draw(); });
  $('st-top-next').addEventListener('click', () => { from += data.pageSize; draw(); });

  function download(name, type, text) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const link = el('a', { href: url, download: name });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  $('st-csv').addEventListener('click', () => download('usage.csv', 'text/csv', D.toCsv(shown)));
  $('st-json').addEventListener('click', () => download('usage.json', 'application/json', D.toJson(shown)));
  draw();
})();
