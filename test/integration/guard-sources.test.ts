import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClustersYaml } from '../../src/config/clusters-config.js';
import type { GuardConfig } from '../../src/config/guards-config.js';
import { createCloudWatchGuardReader } from '../../src/aws/cloudwatch-guard-reader.js';
import { createGuardReader } from '../../src/guards/create-guard-reader.js';
import type { GuardReading } from '../../src/ports/guards/guard-port.js';
import { startPrometheus } from '../support/prometheus-server.js';
import { startAlertmanager } from '../support/alertmanager-server.js';
import type { LocalDaemon } from '../support/local-daemon.js';
import { until } from '../support/until.js';
import { guardChecks } from '../../src/doctor/guard-checks.js';

/**
 * The guard sources against the real servers (Debian's prometheus and prometheus-alertmanager): what the engine
 * reads each interval, and the sentence it says when it cannot.
 */
const cluster = { region: 'us-west-2' };
const reader = createGuardReader({
  cloudWatch: createCloudWatchGuardReader(),
  credentialsFor: () => async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
});

function guardOf(yaml: string): GuardConfig {
  const text = `clusters:\n  - name: demo\n    region: us-west-2\n    channels: [C0DEMO]\n    requesters: [U0REQ]\n    approvers: [U0APP]\n    guards:\n${yaml.replace(/^/gm, '      ')}\n`;
  return parseClustersYaml(text).clusters[0].guards![0];
}

/** A tiny exporter: the availability of two deployments, as a test sets them. */
let available = { checkout: 1, orders: 1 };
let exporter: Server;
let exporterHost: string;
let prometheus: LocalDaemon;
let alertmanager: LocalDaemon;

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

beforeAll(async () => {
  exporter = createServer((_request, response) => {
    response.setHeader('content-type', 'text/plain; version=0.0.4');
    response.end(Object.entries(available).map(([deployment, value]) => `app_available{deployment="${deployment}"} ${value}\n`).join(''));
  });
  exporterHost = await listen(exporter);
  [prometheus, alertmanager] = await Promise.all([startPrometheus({ scrapeTargets: [exporterHost] }), startAlertmanager()]);
});

afterAll(async () => {
  await Promise.all([prometheus?.stop(), alertmanager?.stop()]);
  await new Promise((resolve) => exporter?.close(resolve));
});

const seriesOf = (reading: GuardReading): Record<string, number> => (reading.kind === 'series' ? Object.fromEntries(reading.series.map((one) => [one.labels.deployment, one.value])) : {});

describe('a Prometheus guard', () => {
  it('reads the instant vector the query returns, series by series, as Prometheus scrapes it', async () => {
    const guard = guardOf(`- name: apps\n  prometheus: { url: "${prometheus.url}", query: app_available, breachWhen: "< 0.99" }`);
    await until(async () => JSON.stringify(seriesOf(await reader.read(guard, cluster))) === JSON.stringify({ checkout: 1, orders: 1 }), 'Prometheus to have scraped the exporter');
    available = { checkout: 0.5, orders: 1 };
    await until(async () => seriesOf(await reader.read(guard, cluster)).checkout === 0.5, 'the new value to be scraped');
    const history = await until(async () => {
      const points = await reader.history(guard, cluster, 0, 60_000, 1_000);
      return points?.includes(0.5) && points;
    }, 'query_range to return the new value');
    expect(history.filter((point) => point !== undefined).every((point) => point === 0.5 || point === 1)).toBe(true);
  });

  it('reads a scalar, and an empty vector as no series', async () => {
    const scalar = guardOf(`- name: s\n  prometheus: { url: "${prometheus.url}", query: "scalar(vector(0.25))", breachWhen: "< 1" }`);
    expect(await reader.read(scalar, cluster)).toEqual({ kind: 'series', series: [{ labels: {}, value: 0.25 }] });
    const none = guardOf(`- name: n\n  prometheus: { url: "${prometheus.url}", query: 'app_available{deployment="nothing"}', breachWhen: "< 1" }`);
    expect(await reader.read(none, cluster)).toEqual({ kind: 'series', series: [] });
  });

  it("says Prometheus's own error for bad PromQL, and which server cannot be reached", async () => {
    const bad = guardOf(`- name: typo\n  prometheus: { url: "${prometheus.url}", query: "sum(app_available", breachWhen: "< 1" }`);
    const reading = await reader.read(bad, cluster);
    expect(reading.kind === 'error' && reading.reason).toMatch(new RegExp(`^cannot read guard typo: Prometheus at ${new URL(prometheus.url).origin} answered 400 Bad Request: bad_data: .*parse error`));
    const range = guardOf(`- name: range\n  prometheus: { url: "${prometheus.url}", query: "app_available[1m]", breachWhen: "< 1" }`);
    expect(await reader.read(range, cluster)).toMatchObject({ kind: 'error', reason: expect.stringContaining('cannot read guard range: the query returns a matrix, not an instant vector') });
    const closed = createServer();
    const host = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const away = guardOf(`- name: away\n  prometheus: { url: "http://${host}", query: up, breachWhen: "< 1" }`);
    expect(await reader.read(away, cluster)).toEqual({ kind: 'error', reason: `cannot read guard away: Prometheus at http://${host} cannot be reached (ECONNREFUSED)` });
  });

  it('sends the bearer token or basic credentials it is configured with', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const fake = createServer((request, response) => {
      seen.push(request.headers);
      response.statusCode = request.headers.authorization === 'Bearer right' ? 200 : 401;
      response.setHeader('content-type', 'application/json');
      response.end(response.statusCode === 200 ? JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] } }) : 'Unauthorized');
    });
    const host = await listen(fake);
    try {
      const right = guardOf(`- name: tok\n  prometheus: { url: "http://${host}", query: up, breachWhen: "< 1", auth: { bearerToken: right } }`);
      expect(await reader.read(right, cluster)).toEqual({ kind: 'series', series: [] });
      const wrong = guardOf(`- name: basic\n  prometheus: { url: "http://${host}", query: up, breachWhen: "< 1", auth: { basic: { username: bot, password: pw } } }`);
      expect(await reader.read(wrong, cluster)).toEqual({ kind: 'error', reason: `cannot read guard basic: Prometheus at http://${host} answered 401 Unauthorized: Unauthorized; check the guard's auth` });
      expect(seen[1].authorization).toBe(`Basic ${Buffer.from('bot:pw').toString('base64')}`);
      const signed = guardOf(`- name: amp\n  prometheus: { url: "http://${host}/workspaces/ws-1", query: up, breachWhen: "< 1", auth: { sigv4: { region: us-east-1 } } }`);
      await reader.read(signed, cluster);
      expect(seen[2].authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/aps\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/);
    } finally {
      await new Promise((resolve) => fake.close(resolve));
    }
  });
});

describe('an Alertmanager guard', () => {
  it('reads the active alerts that match every matcher, and leaves out silenced ones', async () => {
    const post = (path: string, body: unknown) => fetch(`${alertmanager.url}/api/v2/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const startsAt = new Date().toISOString();
    const endsAt = new Date(Date.now() + 3_600_000).toISOString();
    expect((await post('alerts', [
      { labels: { alertname: 'CheckoutDown', severity: 'critical', namespace: 'shop' }, startsAt, endsAt },
      { labels: { alertname: 'BillingSlow', severity: 'critical', namespace: 'billing' }, startsAt, endsAt },
      { labels: { alertname: 'OrdersNoisy', severity: 'critical', namespace: 'orders' }, startsAt, endsAt },
    ])).status).toBe(200);
    expect((await post('silences', { matchers: [{ name: 'alertname', value: 'OrdersNoisy', isRegex: false, isEqual: true }], startsAt, endsAt, createdBy: 'test', comment: 'known noise' })).status).toBe(200);
    const guard = guardOf(`- name: critical\n  alertmanager: { url: "${alertmanager.url}", matchers: ['severity="critical"', 'namespace=~"shop|orders"'] }`);
    const reading = await until(async () => {
      const read = await reader.read(guard, cluster);
      return read.kind === 'alerts' && read.alerts.length > 0 && read;
    }, 'Alertmanager to list the alert');
    expect(reading.alerts.map((alert) => alert.name)).toEqual(['CheckoutDown']);
    const quiet = guardOf(`- name: warnings\n  alertmanager: { url: "${alertmanager.url}", matchers: ['severity="warning"'] }`);
    expect(await reader.read(quiet, cluster)).toEqual({ kind: 'alerts', alerts: [] });
  });

  it('says when the url is not an Alertmanager', async () => {
    const wrong = guardOf(`- name: wrong\n  alertmanager: { url: "${prometheus.url}/nothing", matchers: ['a="b"'] }`);
    expect(await reader.read(wrong, cluster)).toMatchObject({ kind: 'error', reason: expect.stringMatching(new RegExp(`^cannot read guard wrong: Alertmanager at http://127\\.0\\.0\\.1:\\d+ answered 404 Not Found.*check the guard's url \\(the path ${new URL(prometheus.url).pathname}/nothing/api/v2/alerts does not exist\\)$`)) });
  });
});

describe('doctor and start-up', () => {
  it('read each guard once: one that can be read passes with its state, one that cannot is a warning with its sentence', async () => {
    const closed = createServer();
    const host = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const config = parseClustersYaml(`clusters:\n  - name: demo\n    region: us-west-2\n    channels: [C0DEMO]\n    requesters: [U0REQ]\n    approvers: [U0APP]\n    guards:\n      - name: up\n        prometheus: { url: "${prometheus.url}", query: "vector(1)", breachWhen: "< 1" }\n      - name: away\n        alertmanager: { url: "http://${host}", matchers: ['a="b"'] }\n`);
    expect(await guardChecks(reader, config.clusters, Date.now())).toEqual([
      { id: 'cluster.demo.guard.up', area: 'cluster', ok: true, detail: 'guard up of demo can be read: healthy', fix: null },
      { id: 'cluster.demo.guard.away', area: 'cluster', ok: null, detail: `cannot read guard away: Alertmanager at http://${host} cannot be reached (ECONNREFUSED)`, fix: "make the guard's url reachable from the bot before an upgrade runs, or set onMissingData: ignore" },
    ]);
  });
});
