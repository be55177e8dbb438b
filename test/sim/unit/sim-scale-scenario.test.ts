import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario, scenarioNames } from '../../../src/sim/scenario/load-scenario.js';
import { startSimulator, type SimServer } from '../../../src/sim/sim-server.js';

describe('the generated scale scenario', () => {
  it('spreads N nodes over P NodePools on al2023@latest, with a Deployment and a PDB per pool, and an optional managed node group', () => {
    expect(scenarioNames()).toContain('scale');
    const scenario = loadScenario('scale', { nodes: 52, pools: 5, mngNodes: 20 });
    const [cluster] = scenario.clusters;
    expect(cluster.version).toBe('1.30');
    expect(cluster.karpenter!.nodePools.map((p) => p.metadata.name)).toEqual(['pool-1', 'pool-2', 'pool-3', 'pool-4', 'pool-5']);
    expect(cluster.karpenter!.ec2NodeClasses.every((c: any) => c.spec.amiSelectorTerms[0].alias === 'al2023@latest')).toBe(true);
    expect(cluster.karpenter!.nodes).toHaveLength(52);
    expect(cluster.karpenter!.nodes.filter((n) => n.nodePool === 'pool-1')).toHaveLength(11);
    expect(cluster.nodegroups.map((ng) => [ng.name, ng.scaling.desired])).toEqual([['mng', 20]]);
    const kinds = cluster.kubernetes.map((m) => `${m.kind}/${m.metadata.name}`);
    expect(kinds.filter((k) => k.startsWith('Deployment/'))).toHaveLength(6);
    expect(kinds.filter((k) => k.startsWith('PodDisruptionBudget/'))).toHaveLength(6);
  });

  it('makes identical clusters scale-01 … with --clusters, each its own size', () => {
    const scenario = loadScenario('scale', { nodes: 12, pools: 3, clusters: 3 });
    expect(scenario.clusters.map((c) => c.name)).toEqual(['scale-01', 'scale-02', 'scale-03']);
    expect(scenario.clusters.map((c) => c.karpenter!.nodes.length)).toEqual([12, 12, 12]);
    expect(loadScenario('scale', { nodes: 12, pools: 3 }).clusters.map((c) => c.name)).toEqual(['scale']);
  });

  it('refuses sizes it cannot build with a sentence naming the flag', () => {
    expect(() => loadScenario('scale', { nodes: 2000, clusters: 21 })).toThrow(/--clusters × nodes is 42000; at most 40000/);
    expect(() => loadScenario('scale', { clusters: 0 })).toThrow(/--clusters must be an integer between 1 and 50, got 0/);
    expect(() => loadScenario('scale', { nodes: 3, pools: 5 })).toThrow(/--pools \(5\) cannot exceed --nodes \(3\)/);
    expect(() => loadScenario('scale', { nodes: -1 })).toThrow(/--nodes must be an integer/);
  });

  describe('running', () => {
    let sim: SimServer;
    let startMs = 0;
    beforeAll(async () => {
      const started = performance.now();
      sim = await startSimulator({ scenario: 'scale', port: 0, speed: 600, nodes: 100, pools: 5 });
      startMs = performance.now() - started;
    });
    afterAll(async () => sim?.close());

    it('starts 100 nodes with three running pods each in a few seconds', async () => {
      expect(startMs).toBeLessThan(15_000);
      const headers = { authorization: 'Bearer sim' };
      const nodes = await (await fetch(`${sim.url}/k8s/scale/api/v1/nodes`, { headers })).json();
      expect(nodes.items).toHaveLength(100);
      const pods = await (await fetch(`${sim.url}/k8s/scale/api/v1/namespaces/apps/pods`, { headers })).json();
      expect(pods.items).toHaveLength(300);
      expect(pods.items.every((p: any) => p.spec.nodeName && p.status.phase === 'Running')).toBe(true);
      const pdbs = await (await fetch(`${sim.url}/k8s/scale/apis/policy/v1/namespaces/apps/poddisruptionbudgets`, { headers })).json();
      expect(pdbs.items.map((p: any) => p.status.disruptionsAllowed)).toEqual([6, 6, 6, 6, 6]);
    }, 60_000);
  });
});
