// @ts-check
// Moments as a person reads them: "21:30:05 (5 min ago)". Pure but for the locale.

const clockFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
const dateFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });

/**
 * "just now", "5 min ago", "in 2 h": `ms` is how long ago (negative: how far ahead).
 * @param {number} ms
 */
export function relative(ms) {
  const seconds = Math.round(ms / 1000);
  const abs = Math.abs(seconds);
  let text;
  if (abs < 10) return seconds >= 0 ? "just now" : "in a moment";
  if (abs < 60) text = `${abs} s`;
  else if (abs < 3600) text = `${Math.round(abs / 60)} min`;
  else if (abs < 86400 * 2) text = `${Math.round(abs / 3600)} h`;
  else text = `${Math.round(abs / 86400)} days`;
  return seconds >= 0 ? `${text} ago` : `in ${text}`;
}

/**
 * The clock time today, else the day and time, with how long ago; what is not a date, as it is.
 * @param {string} iso
 * @param {number} [now]
 */
export function timeText(iso, now = Date.now()) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  const sameDay = new Date(now).toDateString() === date.toDateString();
  return `${sameDay ? clockFormat.format(date) : dateFormat.format(date)} (${relative(now - date.getTime())})`;
}
