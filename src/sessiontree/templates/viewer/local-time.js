/* Local times: an ISO timestamp in the reader's time zone, with the zone named ("2025-11-17
 * 06:23:23 EST"), and its full UTC form for the hover title (pure data); localize(scope) sets every
 * <time datetime> under a scope so (the one DOM step, shared by the viewer, index and search). */
const localTime = (() => {
  const cache = new Map();
  function formatter(locale, timeZone) {
    const key = String(locale) + '|' + String(timeZone);
    let f = cache.get(key);
    if (!f) {
      const o = { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit',
        second: '2-digit', hourCycle: 'h23', timeZoneName: 'short' };
      if (timeZone) o.timeZone = timeZone;
      f = new Intl.DateTimeFormat(locale || undefined, o);
      cache.set(key, f);
    }
    return f;
  }

  // {text, title, date} of an ISO time (null when it is not one). `date`: the local day
  // (YYYY-MM-DD), so a caller can leave it out where it repeats. opts: {locale, timeZone, withDate,
  // seconds (false: HH:MM)}.
  function format(iso, opts) {
    const o = opts || {};
    const t = Date.parse(typeof iso === 'string' ? iso : '');
    if (!Number.isFinite(t)) return null;
    const parts = {};
    for (const p of formatter(o.locale, o.timeZone).formatToParts(new Date(t))) parts[p.type] = p.value;
    const date = parts.year + '-' + parts.month + '-' + parts.day;
    const time = parts.hour + ':' + parts.minute + (o.seconds === false ? '' : ':' + parts.second);
    const zone = parts.timeZoneName || '';
    const utc = new Date(t).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC');
    const text = (o.withDate === false ? '' : date + ' ') + time + (zone ? ' ' + zone : '');
    return { text, title: utc, date };
  }

  // Every <time datetime> under `scope` not yet done, in the reader's zone (a .st-ts entry time
  // without its date, a .st-short time without seconds); the local date and UTC time on hover.
  function localize(scope) {
    for (const t of scope.querySelectorAll('time[datetime]')) {
      if (t.hasAttribute('data-st-local')) continue;
      const f = format(t.getAttribute('datetime'), {
        withDate: !t.classList.contains('st-ts'), seconds: !t.classList.contains('st-short'),
      });
      if (!f) continue;
      t.textContent = f.text;
      t.title = f.date + ' · ' + f.title;
      t.setAttribute('data-st-local', '');
    }
  }

  return { format, localize };
})();
if (typeof module === 'object' && module.exports) module.exports = localTime;
