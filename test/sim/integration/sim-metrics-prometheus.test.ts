import { readFileSync } from 'node:fs';
import { EKSClient, UpdateNodegroupVersionCommand } from '@aws-sdk/client-eks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ALERTMANAGER, startAlertmanager } from '../../support/alertmanager-server.js';
import type { LocalDaemon } from '../../support/local-daemon.js';
import { PROMETHEUS, startPrometheus } from '../../support/prometheus-server.js';
import { requireTool, skipWithout } from '../../support/required-tool.js';
import { simClientConfig, simControl, useSim } from '@eks-upgrade-bot/sim/kit';
import { until } from '../../support/until.js';

/**
 * A real Prometheus scraping the simulator's GET /_sim/metrics, as a guard's Prometheus would scrape
 * kube-state-metrics: a workload broken by kubelet 1.31 loses its availability once the node group's nodes move to
 * 1.31, the query a guard would run says so, and a Prometheus rule on it fires an alert into a real Alertmanager.
 */
const scenario = () => {
  const demo = parseYaml(readFileSync(new URL('../../../src/sim/scenarios/demo.yaml', import.meta.url), 'utf8'));
  const cluster = demo.clusters[0];
  // The control plane already at 1.31, its nodes still at 1.30: the node group update is what brings 1.31 to them.
  cluster.version = '1.31';
  cluster.nodegroups[0].version = '1.30';
  cluster.kubernetes.push({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } });
  return demo;
};

describe.skipIf(skipWithout(PROMETHEUS) || skipWithout(ALERTMANAGER))('Prometheus scraping the simulated workloads', () => {
  const start = useSim();
  let prometheus: LocalDaemon | undefined;
  let alertmanager: LocalDaemon | undefined;
  beforeEach(() => {
    requireTool(PROMETHEUS);
    requireTool(ALERTMANAGER);
  });
  afterEach(async () => {
    await Promise.all([prometheus?.stop(), alertmanager?.stop()]);
    prometheus = alertmanager = undefined;
  });

  it("sees a failed workload's availability drop after its nodes move to the failing version", async () => {
    const sim = await start(scenario());
    alertmanager = await startAlertmanager();
    const rules = JSON.stringify({ groups: [{ name: 'shop', rules: [{ alert: 'ShopWebUnavailable', expr: 'sim_service_available{namespace="shop",service="web"} == 0', labels: { severity: 'critical' } }] }] });
    prometheus = await startPrometheus({ scrapeTargets: [new URL(sim.url).host], metricsPath: '/_sim/metrics', rules, alertmanagerUrl: alertmanager.url });
    const query = async (promql: string): Promise<number | undefined> => {
      const body = (await (await fetch(`${prometheus!.url}/api/v1/query?query=${encodeURIComponent(promql)}`)).json()) as any;
      expect(body.status).toBe('success');
      const value = body.data.result[0]?.value[1];
      return value === undefined ? undefined : Number(value);
    };
    const available = 'sim_service_available{cluster="demo",namespace="shop",service="web"}';
    const ratio = 'kube_deployment_status_replicas_available{cluster="demo",deployment="web"} / kube_deployment_spec_replicas{cluster="demo",deployment="web"}';
    await until(async () => (await query(ratio)) === 1 && (await query(available)) === 1, 'Prometheus to see all of web available', 90_000);

    await simControl(sim, 'POST', 'workloads/fail', { namespace: 'shop', name: 'web', onVersion: '1.31' });

    await new EKSClient(simClientConfig(sim)).send(new UpdateNodegroupVersionCommand({ clusterName: 'demo', nodegroupName: 'demo-ng', version: '1.31' }));
    await until(async () => (await query(available)) === 0, 'Prometheus to see the web Service without a ready endpoint', 120_000);
    // The Deployment's status catches up with its pods' readiness on its controller's next sync, as in Kubernetes:
    // the Service can have lost its last ready endpoint a scrape before the status counts no available replica.
    await until(async () => (await query(ratio)) === 0, "Prometheus to see no available replica in web's Deployment status", 60_000);
    const alert = await until(async () => {
      const alerts = (await (await fetch(`${alertmanager!.url}/api/v2/alerts?active=true`)).json()) as any[];
      return alerts.find((a) => a.labels.alertname === 'ShopWebUnavailable');
    }, 'Alertmanager to list the ShopWebUnavailable alert the rule fired', 90_000);
    expect(alert.labels).toMatchObject({ cluster: 'demo', namespace: 'shop', service: 'web', severity: 'critical' });
    const kubelets = (await simControl(sim, 'GET', 'state')).clusters[0].nodes.map((n: any) => n.kubeletVersion.replace(/^v(\d+\.\d+).*/, '$1'));
    expect(kubelets).toContain('1.31');
  }, 420_000);
});
