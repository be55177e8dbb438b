/**
 * clusters.yaml `maintenanceWindow: { days: [tue, wed], start: "09:00", end: "17:00" }` (UTC): when an upgrade may be
 * started. A window whose end is not after its start runs past midnight; `days` names the day it opens.
 */
export interface MaintenanceWindow {
  days: string[];
  start: string;
  end: string;
}

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const DAY_MS = 24 * 3600_000;

function minutesOf(hhmm: string): number {
  const [hours, minutes] = hhmm.split(':').map(Number);
  return hours * 60 + minutes;
}

/** The [open, close) intervals (epoch ms) of the windows that open on the day of `dayStart` (UTC midnight). */
function windowOn(window: MaintenanceWindow, dayStart: number): [number, number] | undefined {
  if (!window.days.includes(DAYS[new Date(dayStart).getUTCDay()])) return undefined;
  const open = dayStart + minutesOf(window.start) * 60_000;
  const endMinutes = minutesOf(window.end);
  const close = dayStart + (endMinutes > minutesOf(window.start) ? endMinutes : endMinutes + 24 * 60) * 60_000;
  return [open, close];
}

function utcMidnight(at: number): number {
  return Math.floor(at / DAY_MS) * DAY_MS;
}

export function isWithinWindow(window: MaintenanceWindow, at: number): boolean {
  // Yesterday's window may still be open past midnight.
  return [utcMidnight(at) - DAY_MS, utcMidnight(at)].some((day) => {
    const interval = windowOn(window, day);
    return !!interval && at >= interval[0] && at < interval[1];
  });
}

/** When the window next opens after `at` (epoch ms); undefined only for a window with no days. */
export function nextWindowOpening(window: MaintenanceWindow, at: number): number | undefined {
  for (let offset = 0; offset <= 7; offset++) {
    const interval = windowOn(window, utcMidnight(at) + offset * DAY_MS);
    if (interval && interval[0] > at) return interval[0];
  }
  return undefined;
}

/** Every [open, close) interval of the window that opens within `days` days from `from` (UTC). */
export function windowIntervals(window: MaintenanceWindow, from: number, days = 7): Array<[number, number]> {
  const intervals: Array<[number, number]> = [];
  for (let offset = -1; offset <= days; offset++) {
    const interval = windowOn(window, utcMidnight(from) + offset * DAY_MS);
    if (interval && interval[1] > from) intervals.push(interval);
  }
  return intervals;
}

export function describeWindow(window: MaintenanceWindow): string {
  const days = window.days.map((day) => day[0].toUpperCase() + day.slice(1)).join(', ');
  return `${days} ${window.start}–${window.end} UTC`;
}
