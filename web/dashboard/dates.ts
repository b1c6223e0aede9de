/**
 * Every date the dashboard shows, in one format: the browser's language, the month named, no
 * seconds. A calendar day (a range's day, a statement's due day: UTC days on the service) never
 * shows a time; an instant shows its local time unless it is local midnight, which is how a
 * date typed without a time arrives.
 */
const DAY = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const LOCAL_DAY = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const MOMENT = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A UTC calendar day, `2026-03-04` or the day of an ISO instant, as "Mar 4, 2026" in the reader's language. */
export function formatDay(isoDayOrInstant: string): string {
  return DAY.format(new Date(`${isoDayOrInstant.slice(0, 10)}T00:00:00Z`));
}

/** An ISO instant in the reader's time zone, to the minute; local midnight shows the day only. */
export function formatMoment(iso: string): string {
  const moment = new Date(iso);
  const midnight = moment.getHours() === 0 && moment.getMinutes() === 0 && moment.getSeconds() === 0;
  return (midnight ? LOCAL_DAY : MOMENT).format(moment);
}
