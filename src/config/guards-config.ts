/**
 * clusters.yaml `guards:` (issue 29, docs/guards.md): health signals watched while an upgrade acts. Each guard has a
 * name and exactly one source — a Prometheus query, Alertmanager alerts, or CloudWatch alarms — and a breach pauses
 * the upgrade. Validated with the rest of clusters.yaml, so a malformed guard stops start-up with a sentence naming
 * the guard and the key.
 */

import { z } from 'zod';

/** A duration as clusters.yaml writes it: "30s", "1m", "2h". */
const DURATION = /^([1-9]\d{0,5})(s|m|h)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;

export function durationMs(text: string): number {
  const match = DURATION.exec(text);
  if (!match) throw new Error(`not a duration: ${text}`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

const duration = z.string().regex(DURATION, 'must be a duration like "30s", "1m" or "2h"');

/** `breachWhen: "< 0.99"`: a comparison and a number, the condition under which the guard is breached. */
export interface BreachCondition {
  op: '<' | '<=' | '>' | '>=';
  threshold: number;
}

const BREACH_WHEN = /^\s*(<=|>=|<|>)\s*(-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*$/i;

export function parseBreachWhen(text: string): BreachCondition | undefined {
  const match = BREACH_WHEN.exec(text);
  if (!match) return undefined;
  return { op: match[1] as BreachCondition['op'], threshold: Number(match[2]) };
}

/**
 * An Alertmanager matcher as amtool and the v2 API's `filter` parameter write it: `label="value"`, `label!="value"`,
 * `label=~"regex"`, `label!~"regex"` (https://prometheus.io/docs/alerting/latest/configuration/#matcher).
 */
export interface AlertMatcher {
  name: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

const MATCHER = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*$/;

export function parseMatcher(text: string): AlertMatcher | undefined {
  const match = MATCHER.exec(text);
  if (!match) return undefined;
  const value = match[3].replace(/\\(.)/g, '$1');
  const op = match[2] as AlertMatcher['op'];
  if (op === '=~' || op === '!~') {
    try {
      new RegExp(`^(?:${value})$`);
    } catch {
      return undefined;
    }
  }
  return { name: match[1], op, value };
}

const url = z.string().regex(/^https?:\/\/[^\s/]+/, 'must be an http:// or https:// URL like http://prometheus.monitoring:9090');

const auth = z
  .object({
    bearerToken: z.string().min(1),
    bearerTokenFile: z.string().min(1),
    basic: z
      .object({ username: z.string().min(1), password: z.string().min(1).optional(), passwordFile: z.string().min(1).optional() })
      .strict()
      .refine((basic) => (basic.password === undefined) !== (basic.passwordFile === undefined), 'must have exactly one of password and passwordFile'),
    sigv4: z
      .object({ region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region like us-west-2'), service: z.string().min(1).default('aps') })
      .strict(),
  })
  .partial()
  .strict()
  .refine((given) => Object.keys(given).length === 1, 'must have exactly one of bearerToken, bearerTokenFile, basic and sigv4');

const prometheusSource = z
  .object({
    url,
    query: z.string().trim().min(1, 'must be a PromQL query'),
    breachWhen: z.string().refine((text) => parseBreachWhen(text) !== undefined, 'must be a comparison and a number like "< 0.99" (one of <, <=, >, >=)'),
    for: duration.default('1m'),
    auth: auth.optional(),
  })
  .strict();

const alertmanagerSource = z
  .object({
    url,
    matchers: z
      .array(z.string().refine((text) => parseMatcher(text) !== undefined, 'must be a matcher like severity="critical" or namespace=~"shop|orders" (label, one of = != =~ !~, a quoted value; a regex must compile)'))
      .min(1, 'must list at least one matcher, like severity="critical"'),
  })
  .strict();

const cloudwatchSource = z
  .object({
    alarmNames: z.array(z.string().min(1)).min(1, 'must list at least one alarm name').optional(),
    alarmNamePrefix: z.string().min(1).optional(),
    /** The alarms' region; the cluster's when absent. */
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region like us-west-2').optional(),
  })
  .strict()
  .refine((given) => (given.alarmNames === undefined) !== (given.alarmNamePrefix === undefined), 'must have exactly one of alarmNames and alarmNamePrefix');

const SOURCES = ['prometheus', 'alertmanager', 'cloudwatch'] as const;

export const guardSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9 ._\-]{0,62}$/, 'must be a name of letters, digits, spaces, ".", "_" or "-" (at most 63)'),
    prometheus: prometheusSource.optional(),
    alertmanager: alertmanagerSource.optional(),
    cloudwatch: cloudwatchSource.optional(),
    interval: duration.default('30s'),
    onMissingData: z.enum(['halt', 'ignore']).default('halt'),
    autoResume: z.boolean().default(false),
  })
  .strict()
  .superRefine((guard, ctx) => {
    const given = SOURCES.filter((source) => guard[source] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: given.length === 0
          ? 'must have one source: prometheus, alertmanager or cloudwatch'
          : `must have exactly one source, not ${given.join(' and ')}; make each its own guard`,
      });
    }
  });

export const guardsSchema = z.array(guardSchema).superRefine((guards, ctx) => {
  const seen = new Set<string>();
  guards.forEach((guard, index) => {
    if (seen.has(guard.name)) ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `"${guard.name}" is listed twice; guard names must be unique` });
    seen.add(guard.name);
  });
});

export type GuardAuth =
  | { kind: 'bearer'; token: string }
  | { kind: 'bearer-file'; path: string }
  | { kind: 'basic'; username: string; password?: string; passwordFile?: string }
  | { kind: 'sigv4'; region: string; service: string };

export type GuardSource =
  | { kind: 'prometheus'; url: string; query: string; breachWhen: BreachCondition; breachWhenText: string; auth?: GuardAuth }
  | { kind: 'alertmanager'; url: string; matchers: AlertMatcher[]; matcherTexts: string[] }
  | { kind: 'cloudwatch'; alarmNames?: string[]; alarmNamePrefix?: string; region?: string };

export interface GuardConfig {
  name: string;
  source: GuardSource;
  intervalMs: number;
  /**
   * How long a condition must hold: a Prometheus breach for `for` before it counts, and any guard healthy for this
   * long before `autoResume` resumes (Alertmanager and CloudWatch do their own "for" in the rule or alarm, so
   * theirs breach at once and this is their interval).
   */
  forMs: number;
  onMissingData: 'halt' | 'ignore';
  autoResume: boolean;
}

type ParsedGuard = z.output<typeof guardSchema>;

export function guardConfigOf(guard: ParsedGuard): GuardConfig {
  const intervalMs = durationMs(guard.interval);
  const common = { name: guard.name, intervalMs, onMissingData: guard.onMissingData, autoResume: guard.autoResume };
  if (guard.prometheus) {
    const { url, query, breachWhen, auth: given } = guard.prometheus;
    return {
      ...common,
      forMs: durationMs(guard.prometheus.for),
      source: { kind: 'prometheus', url, query, breachWhen: parseBreachWhen(breachWhen)!, breachWhenText: breachWhen.trim(), ...(given ? { auth: authOf(given) } : {}) },
    };
  }
  if (guard.alertmanager) {
    const texts = guard.alertmanager.matchers;
    return { ...common, forMs: intervalMs, source: { kind: 'alertmanager', url: guard.alertmanager.url, matchers: texts.map((text) => parseMatcher(text)!), matcherTexts: texts } };
  }
  const { alarmNames, alarmNamePrefix, region } = guard.cloudwatch!;
  return { ...common, forMs: intervalMs, source: { kind: 'cloudwatch', ...(alarmNames ? { alarmNames } : {}), ...(alarmNamePrefix ? { alarmNamePrefix } : {}), ...(region ? { region } : {}) } };
}

function authOf(given: z.output<typeof auth>): GuardAuth {
  if (given.bearerToken) return { kind: 'bearer', token: given.bearerToken };
  if (given.bearerTokenFile) return { kind: 'bearer-file', path: given.bearerTokenFile };
  if (given.basic) return { kind: 'basic', username: given.basic.username, ...(given.basic.password ? { password: given.basic.password } : { passwordFile: given.basic.passwordFile }) };
  return { kind: 'sigv4', region: given.sigv4!.region, service: given.sigv4!.service };
}

/** What a guard watches, in a few words: the query and its threshold, the matchers, or the alarms. */
export function guardWatches(guard: GuardConfig): string {
  const source = guard.source;
  if (source.kind === 'prometheus') return `${source.query} (breached when ${source.breachWhenText})`;
  if (source.kind === 'alertmanager') return `alerts matching ${source.matcherTexts.join(', ')}`;
  return source.alarmNames ? `alarms ${source.alarmNames.join(', ')}` : `alarms named ${source.alarmNamePrefix}…`;
}
