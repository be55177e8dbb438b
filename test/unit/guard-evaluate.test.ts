import { describe, expect, it } from 'vitest';
import { parseClustersYaml } from '../../src/config/clusters-config.js';
import type { GuardConfig } from '../../src/config/guards-config.js';
import { evaluateGuard, guardDue, guardHalts, guardRecovered, type GuardTrack } from '../../src/planning/guards/evaluate-guard.js';
import { renderSparkline } from '../../src/planning/guards/sparkline.js';
import type { GuardReading } from '../../src/ports/guards/guard-port.js';

function guardOf(yaml: string): GuardConfig {
  const text = `clusters:\n  - name: demo\n    region: us-west-2\n    channels: [C0DEMO]\n    requesters: [U0REQ]\n    approvers: [U0APP]\n    guards:\n${yaml.replace(/^/gm, '      ')}\n`;
  return parseClustersYaml(text).clusters[0].guards![0];
}

const availability = guardOf('- name: checkout\n  prometheus: { url: "http://p:9090", query: avail, breachWhen: "< 0.99", for: 1m }\n  interval: 30s');
const series = (...values: Array<[string, number]>): GuardReading => ({ kind: 'series', series: values.map(([deployment, value]) => ({ labels: { deployment }, value })) });

/** Feeds readings at the given clock seconds and returns every track. */
function run(guard: GuardConfig, readings: Array<[number, GuardReading]>): GuardTrack[] {
  const tracks: GuardTrack[] = [];
  for (const [second, reading] of readings) tracks.push(evaluateGuard(guard, tracks.at(-1), reading, second * 1000));
  return tracks;
}

describe('evaluating a Prometheus guard', () => {
  it('breaches only once the condition has held for `for` on one series, and says since when', () => {
    const tracks = run(availability, [
      [0, series(['checkout', 1], ['orders', 1])],
      [30, series(['checkout', 0.5], ['orders', 1])],
      [60, series(['checkout', 0.5], ['orders', 1])],
      [90, series(['checkout', 0.4], ['orders', 1])],
    ]);
    expect(tracks.map((track) => track.status)).toEqual(['healthy', 'healthy', 'healthy', 'breached']);
    expect(tracks[3]).toMatchObject({ value: 0.4, subject: '{deployment="checkout"}', since: 90_000, troubleSince: 90_000 });
    expect(tracks[3].holding).toEqual({ '{deployment="checkout"}': 30_000 });
  });

  it('restarts the wait when a series recovers in between, and a second series does not inherit the first one\'s time', () => {
    const tracks = run(availability, [
      [0, series(['checkout', 0.5], ['orders', 1])],
      [30, series(['checkout', 1], ['orders', 0.5])],
      [60, series(['checkout', 0.5], ['orders', 0.5])],
      [89, series(['checkout', 0.5], ['orders', 0.5])],
    ]);
    expect(tracks.map((track) => track.status)).toEqual(['healthy', 'healthy', 'healthy', 'healthy']);
    expect(run(availability, [[0, series(['a', 0.5])], [60, series(['a', 0.5])]]).at(-1)!.status).toBe('breached');
  });

  it('treats an empty result as missing data and a failed read as unknown with its sentence; both halt unless ignored', () => {
    const [empty] = run(availability, [[0, { kind: 'series', series: [] }]]);
    expect(empty).toMatchObject({ status: 'unknown', reason: 'the query returned no series (missing data)' });
    const [failed] = run(availability, [[0, { kind: 'error', reason: 'cannot read guard checkout: connection refused' }]]);
    expect(failed.reason).toBe('cannot read guard checkout: connection refused');
    expect(guardHalts(availability, 'unknown')).toBe(true);
    expect(guardHalts({ ...availability, onMissingData: 'ignore' }, 'unknown')).toBe(false);
  });

  it('is due once per interval and recovered after healthy for `for`', () => {
    const tracks = run(availability, [[0, series(['a', 0.5])], [60, series(['a', 0.5])], [90, series(['a', 1])], [120, series(['a', 1])]]);
    expect(guardDue(availability, tracks[3], 149_000)).toBe(false);
    expect(guardDue(availability, tracks[3], 150_000)).toBe(true);
    expect(guardRecovered(availability, tracks[3], 120_000)).toBe(false);
    expect(guardRecovered(availability, tracks[3], 150_000)).toBe(true);
    expect(tracks[3].troubleSince).toBeUndefined();
  });

  it('compares with each operator', () => {
    const over = guardOf('- name: errors\n  prometheus: { url: "http://p:9090", query: e, breachWhen: ">= 5", for: 30s }');
    expect(run(over, [[0, series(['a', 5])], [30, series(['a', 5])]]).at(-1)!.status).toBe('breached');
    expect(run(over, [[0, series(['a', 4.9])], [30, series(['a', 4.9])]]).at(-1)!.status).toBe('healthy');
  });
});

describe('evaluating Alertmanager and CloudWatch guards', () => {
  const alerts = guardOf('- name: critical\n  alertmanager: { url: "http://am:9093", matchers: [\'severity="critical"\'] }');
  const alarms = guardOf('- name: slo\n  cloudwatch: { alarmNames: [latency, errors] }');

  it('breaches at once on a matching alert, naming it', () => {
    const [track] = run(alerts, [[0, { kind: 'alerts', alerts: [{ name: 'CheckoutDown', labels: { severity: 'critical' } }] }]]);
    expect(track).toMatchObject({ status: 'breached', value: 1, subject: 'CheckoutDown' });
    expect(run(alerts, [[0, { kind: 'alerts', alerts: [] }]])[0].status).toBe('healthy');
  });

  it('breaches on an alarm in ALARM, and is unknown for a missing alarm or insufficient data', () => {
    const read = (states: Array<[string, 'OK' | 'ALARM' | 'INSUFFICIENT_DATA']>, missing: string[] = []) =>
      run(alarms, [[0, { kind: 'alarms', alarms: states.map(([name, state]) => ({ name, state })), missing }]])[0];
    expect(read([['latency', 'ALARM'], ['errors', 'OK']])).toMatchObject({ status: 'breached', subject: 'latency' });
    expect(read([['latency', 'OK']], ['errors'])).toMatchObject({ status: 'unknown', reason: 'CloudWatch has no alarm named errors' });
    expect(read([['latency', 'OK'], ['errors', 'INSUFFICIENT_DATA']])).toMatchObject({ status: 'unknown', reason: 'alarm errors has insufficient data' });
    expect(read([['latency', 'OK'], ['errors', 'OK']]).status).toBe('healthy');
  });
});

describe('the sparkline', () => {
  it('draws low values low and high values high, gaps as spaces', () => {
    expect(renderSparkline([0, 1, 2, 3, 4, 5, 6, 7])).toBe('▁▂▃▄▅▆▇█');
    expect(renderSparkline([1, 1, undefined, 0])).toBe('██ ▁');
    expect(renderSparkline([0.5, 0.5])).toBe('▄▄');
    expect(renderSparkline([undefined])).toBe('');
  });
});
