import type { GuardConfig } from '../config/guards-config.js';
import type { GuardReading } from '../ports/guards/guard-port.js';
import { getJson } from './http-json.js';

/**
 * An Alertmanager guard over API v2 (api/v2/openapi.yaml, GET /alerts): `active=true&silenced=false&inhibited=false`
 * leaves only alerts that would notify someone, and each matcher is one `filter` parameter, which Alertmanager ANDs
 * (the same matcher syntax as amtool and the guard's clusters.yaml entry).
 */
type AlertmanagerGuard = GuardConfig & { source: Extract<GuardConfig['source'], { kind: 'alertmanager' }> };

export async function readAlertmanagerGuard(guard: AlertmanagerGuard): Promise<GuardReading> {
  const url = new URL(`${guard.source.url.replace(/\/+$/, '')}/api/v2/alerts`);
  url.searchParams.set('active', 'true');
  url.searchParams.set('silenced', 'false');
  url.searchParams.set('inhibited', 'false');
  for (const matcher of guard.source.matchers) url.searchParams.append('filter', `${matcher.name}${matcher.op}${JSON.stringify(matcher.value)}`);
  const answer = await getJson(url, {}, 'Alertmanager');
  if (!answer.ok) return { kind: 'error', reason: `cannot read guard ${guard.name}: ${answer.reason}` };
  if (!Array.isArray(answer.body)) return { kind: 'error', reason: `cannot read guard ${guard.name}: Alertmanager at ${url.origin} did not answer with a list of alerts; check the guard's url` };
  const alerts = answer.body as Array<{ labels?: Record<string, string>; startsAt?: string }>;
  return {
    kind: 'alerts',
    alerts: alerts.map((alert) => ({ name: alert.labels?.alertname ?? '(no alertname)', labels: alert.labels ?? {}, ...(alert.startsAt ? { startsAt: alert.startsAt } : {}) })),
  };
}
