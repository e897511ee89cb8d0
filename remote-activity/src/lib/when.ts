/**
 * When something happened, said plainly: "just now", "5 minutes ago", "3 hours ago" within a day, then the date
 * and time ("Mar 7, 2026, 10:15 AM") in the holder's time zone. Intl only, no date library.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const RELATIVE = new Intl.RelativeTimeFormat('en-US', { numeric: 'always' });

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();
function dateTimeFormat(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let format = dateTimeFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      dateStyle: 'medium',
      timeStyle: 'short',
      ...(timeZone ? { timeZone } : {}),
    });
    dateTimeFormats.set(key, format);
  }
  return format;
}

/** `iso` as the lists say it, seen at `now` (ms); '' when unreadable. `timeZone` for tests; the browser's by default. */
export function describeWhen(iso: string, now: number, timeZone?: string): string {
  const at = new Date(iso).getTime();
  if (Number.isNaN(at)) return '';
  const ago = now - at;
  // A clock a little ahead of the browser's still reads as now.
  if (ago < MINUTE) return 'just now';
  if (ago < HOUR) return RELATIVE.format(-Math.floor(ago / MINUTE), 'minute');
  if (ago < DAY) return RELATIVE.format(-Math.floor(ago / HOUR), 'hour');
  return dateTimeFormat(timeZone).format(at);
}

/** The text with its first letter upper case: "just now" at the start of a line. */
export const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
