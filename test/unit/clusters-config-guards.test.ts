import { describe, expect, it } from 'vitest';
import { parseClustersYaml } from '../../src/config/clusters-config.js';
import { clustersYamlErrorOf } from '../support/clusters-yaml-error.js';

const head = `
defaults:
  region: us-west-2
  channels: [C0DEMO]
  requesters: [U0REQ]
  approvers: [U0APP]
`;

const errorOf = clustersYamlErrorOf;

/** A file whose one cluster has the given guard (indented YAML under "guards:"). */
function withGuard(guard: string): string {
  return `${head}clusters:\n  - name: demo\n    guards:\n${guard.replace(/^/gm, '      ')}\n`;
}

describe('clusters.yaml guards:', () => {
  it('reads one guard of each source with the documented defaults', () => {
    const config = parseClustersYaml(`${head}  guards:
    - name: checkout available
      prometheus:
        url: http://prometheus.monitoring:9090
        query: sum(kube_deployment_status_replicas_available{deployment="checkout"}) / sum(kube_deployment_spec_replicas{deployment="checkout"})
        breachWhen: "< 0.99"
    - name: critical alerts
      alertmanager:
        url: http://alertmanager.monitoring:9093
        matchers: ['severity="critical"', 'namespace=~"shop|orders"']
      interval: 15s
      onMissingData: ignore
      autoResume: true
    - name: slo alarms
      cloudwatch: { alarmNamePrefix: "prod-slo-" }
clusters:
  - name: demo
`);
    const [prom, am, cw] = config.clusters[0].guards!;
    expect(prom).toEqual({
      name: 'checkout available', intervalMs: 30_000, forMs: 60_000, onMissingData: 'halt', autoResume: false,
      source: expect.objectContaining({ kind: 'prometheus', url: 'http://prometheus.monitoring:9090', breachWhen: { op: '<', threshold: 0.99 }, breachWhenText: '< 0.99' }),
    });
    expect(am).toMatchObject({ intervalMs: 15_000, onMissingData: 'ignore', autoResume: true, source: { kind: 'alertmanager', matchers: [{ name: 'severity', op: '=', value: 'critical' }, { name: 'namespace', op: '=~', value: 'shop|orders' }] } });
    expect(cw).toMatchObject({ source: { kind: 'cloudwatch', alarmNamePrefix: 'prod-slo-' } });
  });

  it("a cluster's guards replace the default list, and no guards is an empty list", () => {
    const config = parseClustersYaml(`${head}  guards:
    - name: default one
      cloudwatch: { alarmNames: [a] }
clusters:
  - name: inherits
  - name: own
    guards:
      - name: own one
        cloudwatch: { alarmNames: [b] }
  - name: none
    guards: []
`);
    expect(config.clusters.map((cluster) => cluster.guards!.map((guard) => guard.name))).toEqual([['default one'], ['own one'], []]);
  });

  it('reads each kind of Prometheus auth', () => {
    const auth = (text: string) => parseClustersYaml(withGuard(`- name: g\n  prometheus: { url: "https://aps.example", query: up, breachWhen: "< 1", for: 2m, auth: ${text} }`)).clusters[0].guards![0];
    expect(auth('{ bearerToken: abc }').source).toMatchObject({ auth: { kind: 'bearer', token: 'abc' } });
    expect(auth('{ bearerTokenFile: /var/run/token }').source).toMatchObject({ auth: { kind: 'bearer-file', path: '/var/run/token' } });
    expect(auth('{ basic: { username: u, passwordFile: /p } }').source).toMatchObject({ auth: { kind: 'basic', username: 'u', passwordFile: '/p' } });
    expect(auth('{ sigv4: { region: us-east-1 } }').source).toMatchObject({ auth: { kind: 'sigv4', region: 'us-east-1', service: 'aps' } });
    expect(auth('{ bearerToken: abc }').forMs).toBe(120_000);
  });

  it('refuses a malformed guard with a sentence naming the guard and the key', () => {
    const prom = (extra: string) => withGuard(`- name: checkout\n  prometheus: { url: "http://p:9090", query: up, ${extra} }`);
    expect(errorOf(prom('breachWhen: "below 0.99"'))).toBe(
      'clusters.yaml: clusters[0] (demo).guards[0] (checkout).prometheus.breachWhen: must be a comparison and a number like "< 0.99" (one of <, <=, >, >=)',
    );
    expect(errorOf(prom('breachWhen: "< 1", treshold: 2'))).toBe(
      'clusters.yaml: clusters[0] (demo).guards[0] (checkout).prometheus: unknown key "treshold" (known keys: url, query, breachWhen, for, auth)',
    );
    expect(errorOf(prom('breachWhen: "< 1", for: 1 minute'))).toContain('guards[0] (checkout).prometheus.for: must be a duration like "30s", "1m" or "2h"');
    expect(errorOf(prom('breachWhen: "< 1", auth: { bearerToken: a, sigv4: { region: us-east-1 } }'))).toContain(
      'guards[0] (checkout).prometheus.auth: must have exactly one of bearerToken, bearerTokenFile, basic and sigv4',
    );
    expect(errorOf(withGuard('- name: alerts\n  alertmanager: { url: "http://am:9093", matchers: [\'severity=critical\'] }'))).toContain(
      'guards[0] (alerts).alertmanager.matchers[0]: must be a matcher like severity="critical"',
    );
    expect(errorOf(withGuard('- name: alerts\n  alertmanager: { url: "http://am:9093", matchers: [\'ns=~"(shop"\'] }'))).toContain('a regex must compile');
    expect(errorOf(withGuard('- name: both\n  cloudwatch: { alarmNames: [a] }\n  alertmanager: { url: "http://am:9093", matchers: [\'a="b"\'] }'))).toBe(
      'clusters.yaml: clusters[0] (demo).guards[0] (both): must have exactly one source, not alertmanager and cloudwatch; make each its own guard',
    );
    expect(errorOf(withGuard('- name: nothing\n  interval: 30s'))).toContain('guards[0] (nothing): must have one source: prometheus, alertmanager or cloudwatch');
    expect(errorOf(withGuard('- name: cw\n  cloudwatch: { alarmNames: [a], alarmNamePrefix: b }'))).toContain('guards[0] (cw).cloudwatch: must have exactly one of alarmNames and alarmNamePrefix');
    expect(errorOf(withGuard('- name: cw\n  cloudwatch: { alarmNames: [a] }\n  onMissingData: skip'))).toContain('guards[0] (cw).onMissingData: must be one of halt, ignore');
    expect(errorOf(withGuard('- name: cw\n  cloudwatch: { alarmNames: [a] }\n- name: cw\n  cloudwatch: { alarmNames: [b] }'))).toContain('guards[1] (cw).name: "cw" is listed twice');
  });
});
