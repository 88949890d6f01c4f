// Short relative times for dense lists (the Sidebar's rows): "now", "5m",
// "3h", "2d", then the date. The full date and time goes in a title
// (fullTime).

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How long before now iso was, in at most four characters or a short date:
 * under a minute "now", then "Nm", "Nh", "Nd" (under a week), then "Mon D"
 * (with the year when it is not now's). A time in the future reads "now";
 * an unreadable one "".
 */
export function relTime(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const d = now - t;
  if (d < MINUTE) return 'now';
  if (d < HOUR) return `${Math.floor(d / MINUTE)}m`;
  if (d < DAY) return `${Math.floor(d / HOUR)}h`;
  if (d < 7 * DAY) return `${Math.floor(d / DAY)}d`;
  const date = new Date(t);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return date.toLocaleDateString(undefined, { month: 'short', day: 'numeric', year: sameYear ? undefined : 'numeric' });
}

/** The full date and time of iso in the user's locale; "" for none or an unreadable one. */
export function fullTime(iso: string | undefined): string {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? '' : new Date(t).toLocaleString();
}
