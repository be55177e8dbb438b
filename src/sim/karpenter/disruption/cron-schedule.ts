/**
 * Standard 5-field cron (UTC) as Karpenter parses budget schedules with robfig/cron's ParseStandard: lists, ranges,
 * steps, month and weekday names, and the @yearly/@monthly/@weekly/@daily/@midnight/@hourly descriptors. Includes
 * robfig's day rule: when either day-of-month or day-of-week is "*", both must match; otherwise either may.
 */
export interface CronSchedule {
  minutes: Set<number>;
  hours: Set<number>;
  daysOfMonth: Set<number>;
  months: Set<number>;
  daysOfWeek: Set<number>;
  domStar: boolean;
  dowStar: boolean;
}

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

function parseValue(text: string, names: string[] | undefined, offset: number): number {
  const named = names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + offset;
  if (!/^\d+$/.test(text)) throw new Error(`"${text}" is not a number`);
  return Number(text);
}

function parseField(field: string, min: number, max: number, names?: string[], nameOffset = 0): { values: Set<number>; star: boolean } {
  const values = new Set<number>();
  let star = false;
  for (const part of field.split(',')) {
    const [range, stepText] = part.split('/');
    const step = stepText === undefined ? 1 : parseValue(stepText, undefined, 0);
    if (step < 1) throw new Error(`step "${stepText}" must be positive`);
    let start: number;
    let end: number;
    if (range === '*' || range === '?') {
      [start, end] = [min, max];
      star = step === 1;
    } else {
      const [low, high] = range.split('-');
      start = parseValue(low, names, nameOffset);
      // "N/step" means N through the maximum.
      end = high !== undefined ? parseValue(high, names, nameOffset) : stepText !== undefined ? max : start;
    }
    if (start < min || end > max || start > end) throw new Error(`"${part}" is outside ${min}-${max}`);
    for (let value = start; value <= end; value += step) values.add(value);
  }
  return { values, star };
}

/** Throws an Error naming the problem when the expression is not valid cron. */
export function parseCron(expression: string): CronSchedule {
  const text = DESCRIPTORS[expression.trim().toLowerCase()] ?? expression.trim();
  const fields = text.split(/\s+/);
  if (fields.length !== 5) throw new Error(`cron "${expression}" must have 5 fields, has ${fields.length}`);
  const dom = parseField(fields[2], 1, 31);
  const dow = parseField(fields[4], 0, 6, WEEKDAYS);
  return {
    minutes: parseField(fields[0], 0, 59).values,
    hours: parseField(fields[1], 0, 23).values,
    daysOfMonth: dom.values,
    months: parseField(fields[3], 1, 12, MONTHS, 1).values,
    daysOfWeek: dow.values,
    domStar: dom.star,
    dowStar: dow.star,
  };
}

function dayMatches(schedule: CronSchedule, date: Date): boolean {
  const dom = schedule.daysOfMonth.has(date.getUTCDate());
  const dow = schedule.daysOfWeek.has(date.getUTCDay());
  const day = schedule.domStar || schedule.dowStar ? dom && dow : dom || dow;
  return day && schedule.months.has(date.getUTCMonth() + 1);
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The first time the schedule fires strictly after `after` and no later than `until`, or undefined. */
export function nextFiring(schedule: CronSchedule, after: number, until: number): number | undefined {
  let t = Math.floor(after / MINUTE) * MINUTE + MINUTE;
  while (t <= until) {
    const date = new Date(t);
    if (!dayMatches(schedule, date)) {
      t = Math.floor(t / DAY) * DAY + DAY;
      continue;
    }
    if (!schedule.hours.has(date.getUTCHours())) {
      t = Math.floor(t / HOUR) * HOUR + HOUR;
      continue;
    }
    if (schedule.minutes.has(date.getUTCMinutes())) return t;
    t += MINUTE;
  }
  return undefined;
}

/** Go time.ParseDuration for the forms budgets use ("8h", "30m", "1h30m", "10h0m0s"); throws when malformed. */
export function parseGoDuration(text: string): number {
  const units: Record<string, number> = { h: HOUR, m: MINUTE, s: 1000, ms: 1 };
  const pattern = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let consumed = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index !== consumed) break;
    total += Number(match[1]) * units[match[2]];
    consumed += match[0].length;
  }
  if (consumed !== text.length || text.length === 0) throw new Error(`duration "${text}" is not like 8h, 30m or 1h30m`);
  return total;
}
