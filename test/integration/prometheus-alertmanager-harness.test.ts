import { afterEach, describe, expect, it } from 'vitest';
import { ALERTMANAGER, startAlertmanager } from '../support/alertmanager-server.js';
import type { LocalDaemon } from '../support/local-daemon.js';
import { PROMETHEUS, startPrometheus } from '../support/prometheus-server.js';
import { skipWithout } from '../support/required-tool.js';
import { until } from '../support/until.js';

// The guards' tests (issue 29) read a real Prometheus and a real Alertmanager; this checks the harness itself: a
// Prometheus scraping a target, evaluating a rule, and sending the alert to an Alertmanager that lists it.
describe.skipIf(skipWithout(PROMETHEUS) || skipWithout(ALERTMANAGER))('the real Prometheus and Alertmanager test servers', () => {
  const started: LocalDaemon[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((d) => d.stop()));
  });

  it('scrape a target, fire a rule into Alertmanager, and are gone after stop()', async () => {
    const am = await startAlertmanager();
    started.push(am);
    // Each server answers only under its own path: another suite's server that took the port first would not pass
    // for it (local-daemon.ts).
    expect((await fetch(`${am.url}/-/ready`)).status).toBe(200);
    expect((await fetch(`${new URL(am.url).origin}/-/ready`)).status).toBe(404);
    const rules = JSON.stringify({ groups: [{ name: 'harness', rules: [{ alert: 'HarnessAlways', expr: 'vector(1)', labels: { severity: 'critical' } }] }] });
    const prom = await startPrometheus({ scrapeTargets: [new URL(am.url).host], metricsPath: `${new URL(am.url).pathname}/metrics`, rules, alertmanagerUrl: am.url });
    started.push(prom);

    const up = await until(async () => {
      const body = (await (await fetch(`${prom.url}/api/v1/query?query=${encodeURIComponent('up{job="sim"}')}`)).json()) as any;
      return body.data.result.find((r: any) => r.value[1] === '1');
    }, 'Prometheus to have scraped the Alertmanager target (up == 1)', 90_000);
    expect(up.metric.instance).toBe(new URL(am.url).host);

    const alert = await until(async () => {
      const alerts = (await (await fetch(`${am.url}/api/v2/alerts?active=true`)).json()) as any[];
      return alerts.find((a) => a.labels.alertname === 'HarnessAlways');
    }, 'Alertmanager to list the HarnessAlways alert Prometheus fired', 90_000);
    expect(alert.labels.severity).toBe('critical');

    await prom.stop();
    await expect(fetch(`${prom.url}/-/ready`)).rejects.toThrow();
  }, 300_000);
});
