/* Local times (pure data, no DOM): an ISO timestamp in the reader's time zone, with the zone
 * named ("2025-11-17 06:23:23 EST"), and its full UTC form for the hover title. */
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
  // (YYYY-MM-DD), so a caller can leave it out where it repeats. opts: {locale, timeZone, withDate}.
  function format(iso, opts) {
    const o = opts || {};
    const t = Date.parse(typeof iso === 'string' ? iso : '');
    if (!Number.isFinite(t)) return null;
    const parts = {};
    for (const p of formatter(o.locale, o.timeZone).formatToParts(new Date(t))) parts[p.type] = p.value;
    const date = parts.year + '-' + parts.month + '-' + parts.day;
    const time = parts.hour + ':' + parts.minute + ':' + parts.second;
    const zone = parts.timeZoneName || '';
    const utc = new Date(t).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC');
    const text = (o.withDate === false ? '' : date + ' ') + time + (zone ? ' ' + zone : '');
    return { text, title: utc, date };
  }

  return { format };
})();
if (typeof module === 'object' && module.exports) module.exports = localTime;
