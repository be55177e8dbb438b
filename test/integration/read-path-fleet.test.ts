import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EksPort } from '../../src/ports/aws/eks-port.js';
import type { SimServer } from '@eks-upgrade-bot/sim';
import { collectStatuses, type StatusTarget } from '../../src/cluster-reader/collect-statuses.js';
import { renderStatusMessages } from '../../src/report/blocks/render-status-blocks.js';
import { renderStatusText } from '../../src/report/render-status-text.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { simSources } from './read-path-harness.js';

/**
 * `status --all` over the simulator's generated fleet through the real SDKs and client-node: one row per cluster,
 * in order, even when clusters are FAILED (every 13th), have an unreachable Kubernetes API (every 10th), do not
 * exist, or do not answer at all (a deadline).
 */
const COUNT = 30;
let sim: SimServer;
let targets: StatusTarget[];

beforeAll(async () => {
  sim = await startSim('fleet', { clusters: COUNT, speed: 600 });
  targets = [...sim.world.clusters.values()].map((c) => ({ name: c.name, region: c.region }));
});
afterAll(async () => sim?.close());

describe('status --all over a fleet', () => {
  it('answers one row per cluster, in order, the broken ones included, within a few seconds', async () => {
    const started = Date.now();
    const all = [...targets, { name: 'ghost', region: 'us-west-2' }];
    const statuses = await collectStatuses(simSources(sim), all, { concurrency: 8, timeoutMs: 15_000 });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(statuses.map((s) => s.name)).toEqual(all.map((t) => t.name));

    const byName = new Map(statuses.map((s) => [s.name, s]));
    expect(byName.get('ghost')!.error).toMatch(/^DescribeCluster for ghost failed: ResourceNotFoundException/);
    expect(byName.get('dev-013')).toMatchObject({ status: 'FAILED' });
    const unreachable = byName.get('dev-010')!;
    expect(unreachable.error).toBeUndefined();
    expect(unreachable.version).toBeDefined();
    // A row reads only the nodes: only they are "not read", not the workload lists a row never asks for.
    expect(unreachable.problems).toEqual([expect.stringMatching(/^nodes: listing nodes in cluster dev-010 failed: the Kubernetes API could not be reached/)]);
    expect(renderStatusText(statuses)).toMatch(/^dev-010 .* not read: nodes: listing nodes in cluster dev-010 failed: the Kubernetes API could not be reached/m);
    expect(renderStatusText(statuses)).not.toMatch(/PodDisruptionBudgets/);
    const healthy = byName.get('dev-001')!;
    expect(healthy).toMatchObject({ status: 'ACTIVE', problems: [] });
    expect(healthy.nodes[0].versions[0].count).toBeGreaterThan(0);
    // A lagging AL2 group two minors behind shows its skew (dev-007: 1.31 control plane, 1.29 nodes).
    expect(byName.get('dev-007')!.nodes[0].skew).toMatchObject({ maxBehind: 2, withinPolicy: true });

    const messages = renderStatusMessages(statuses);
    const text = JSON.stringify(messages);
    for (const target of all) expect(text).toContain(`\`${target.name}\``);
    for (const message of messages) expect(message.blocks!.length).toBeLessThanOrEqual(50);
    expect(text).toMatch(/`dev-010`[^"]* · not read: Kubernetes API/);
  });

  it("one unreachable cluster's card names the nodes and NodePools it could not read, and nothing it never asked for", async () => {
    const [card] = await collectStatuses(simSources(sim), [targets.find((t) => t.name === 'dev-010')!], { timeoutMs: 15_000 });
    expect(card.problems).toEqual([expect.stringMatching(/^nodes, Karpenter: listing nodes in cluster dev-010 failed: the Kubernetes API could not be reached/)]);
    const text = renderStatusText([card]);
    expect(text).toMatch(/^NOT READ\n {2}nodes, Karpenter: listing nodes in cluster dev-010 failed: the Kubernetes API could not be reached/m);
    expect(text).not.toMatch(/pods|deployments|PersistentVolumeClaims/);
  });

  it('reads each row with what a row shows, a FAILED cluster\'s updates once, every list in one call', async () => {
    sim.requests.reset();
    await collectStatuses(simSources(sim), targets.slice(0, 13), { concurrency: 4, timeoutMs: 15_000 });
    // dev-013 is FAILED: its row reads the latest updates (ListUpdates once); an ACTIVE cluster's row has no rollback
    // line, so no ListUpdates. A row counts kubelets from the nodes and insights by their listed status: no node
    // groups, NodePools or DescribeInsight. The strict simulator answers 3 items a page unless asked for more; the
    // bot asks for EKS's maximum (100).
    const rows = targets.slice(0, 13).map((target) => {
      const { aws, kube } = sim.requests.counts(target.name);
      return [target.name, aws['eks ListInsights'], aws['eks ListAddons'], aws['eks ListUpdates'] ?? 0, aws['eks ListNodegroups'] ?? 0, aws['eks DescribeInsight'] ?? 0, kube['list nodepools'] ?? 0];
    });
    expect(rows).toEqual(targets.slice(0, 13).map((target) => [target.name, 1, 1, target.name === 'dev-013' ? 1 : 0, 0, 0, 0]));
    expect(sim.requests.counts('dev-001').kube['list nodes']).toBe(1);
  });

  it('reads one cluster as its card: the rollback line\'s updates, node groups, NodePools and insight details', async () => {
    sim.requests.reset();
    const [card] = await collectStatuses(simSources(sim), [targets[0]], { timeoutMs: 15_000 });
    expect(card.error).toBeUndefined();
    const { aws, kube } = sim.requests.counts(targets[0].name);
    expect([aws['eks ListUpdates'], aws['eks ListNodegroups'], kube['list nodepools']]).toEqual([1, 1, 1]);
  });

  it('a cluster that does not answer becomes an error row at its deadline; the others are unaffected', async () => {
    const sources = simSources(sim);
    const realEks = sources.eks;
    const hanging = {
      ...sources,
      eks: (target: { region: string; roleArn?: string }): EksPort => {
        const port = realEks(target);
        return { ...port, describeCluster: (name: string) => (name === 'staging-002' ? new Promise(() => {}) : port.describeCluster(name)) };
      },
    };
    // A deadline the healthy clusters meet on a busy machine too (with 1 s, a second suite beside this one made their
    // reads miss it as well, 7 December): the hanging one still ends at it, and the whole read does not wait longer.
    const started = Date.now();
    const statuses = await collectStatuses(hanging, targets.slice(0, 4), { timeoutMs: 8_000 });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(statuses.map((s) => [s.name, s.error ?? 'ok'])).toEqual([
      ['dev-001', 'ok'],
      ['staging-002', 'Reading cluster staging-002: Cluster staging-002 did not answer within 8 s.'],
      ['prod-003', 'ok'],
      ['dev-004', 'ok'],
    ]);
  });
});
