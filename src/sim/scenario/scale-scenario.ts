/**
 * The `scale` scenario: one cluster `scale` at 1.30 for the API-economy and posts-per-upgrade benchmarks (issue 17,
 * P3/P5). `pools` Karpenter NodePools (`pool-1` … each with its EC2NodeClass on `alias: al2023@latest`, so the
 * control-plane upgrade to 1.31 drifts every node) share `nodes` m5.large nodes round-robin over three zones; each
 * pool runs one Deployment (`app-<pool>`, three 100m pods per node, pinned to the pool by a node selector and its
 * taint) with a PodDisruptionBudget of maxUnavailable 10%. `mngNodes` > 0 adds a managed node group `mng` of that
 * many nodes with a Deployment `mng-app` and its PDB, for the managed-node-group update. Budgets are nodes 10% per
 * pool, so a 500-node drift replaces about 50 nodes at a time.
 */

import { defaultAddonVersion } from '../aws/eks/addon-catalog.js';

export interface ScaleScenarioOptions {
  /** Karpenter nodes in all (default 500). */
  nodes?: number;
  /** Karpenter NodePools sharing them (default 5). */
  pools?: number;
  /** Nodes of an extra managed node group (default 0: none). */
  mngNodes?: number;
  /** Identical clusters (default 1: one named `scale`; more are `scale-01` …). */
  clusters?: number;
}

const ZONES = ['us-west-2a', 'us-west-2b', 'us-west-2c'];
const PODS_PER_NODE = 3;

export function generateScaleScenario(options: ScaleScenarioOptions = {}): Record<string, unknown> {
  const nodes = options.nodes ?? 500;
  const pools = options.pools ?? 5;
  const mngNodes = options.mngNodes ?? 0;
  const copies = options.clusters ?? 1;
  if (!Number.isInteger(nodes) || nodes < 0 || nodes > 5000) throw new Error(`scale scenario: --nodes must be an integer between 0 and 5000, got ${nodes}`);
  if (!Number.isInteger(pools) || pools < 1 || pools > 100) throw new Error(`scale scenario: --pools must be an integer between 1 and 100, got ${pools}`);
  if (pools > Math.max(nodes, 1)) throw new Error(`scale scenario: --pools (${pools}) cannot exceed --nodes (${nodes}); every pool needs a node`);
  if (!Number.isInteger(mngNodes) || mngNodes < 0 || mngNodes > 1000) throw new Error(`scale scenario: --mng-nodes must be an integer between 0 and 1000, got ${mngNodes}`);
  if (!Number.isInteger(copies) || copies < 1 || copies > 50) throw new Error(`scale scenario: --clusters must be an integer between 1 and 50, got ${copies}`);
  if (copies * (nodes + mngNodes) > 40_000) throw new Error(`scale scenario: --clusters × nodes is ${copies * (nodes + mngNodes)}; at most 40000 nodes in all fit one simulator`);

  const poolNames = Array.from({ length: pools }, (_, i) => `pool-${i + 1}`);
  const nodesOf = (i: number) => Math.floor(nodes / pools) + (i < nodes % pools ? 1 : 0);
  const karpenterNodes = poolNames.flatMap((pool, i) =>
    Array.from({ length: nodesOf(i) }, (_, j) => ({ nodePool: pool, instanceType: 'm5.large', zone: ZONES[j % ZONES.length] })),
  );
  const kubernetes: Array<Record<string, unknown>> = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } },
    ...poolNames.flatMap((pool, i) => workload(`app-${pool}`, PODS_PER_NODE * nodesOf(i), { 'karpenter.sh/nodepool': pool }, [{ key: 'pool', operator: 'Equal', value: pool, effect: 'NoSchedule' }])),
    ...(mngNodes > 0 ? workload('mng-app', PODS_PER_NODE * mngNodes, { 'eks.amazonaws.com/nodegroup': 'mng' }, []) : []),
  ];
  const names = copies === 1 ? ['scale'] : Array.from({ length: copies }, (_, i) => `scale-${String(i + 1).padStart(2, '0')}`);
  return {
    name: 'scale',
    description: `${copies === 1 ? 'one 1.30 cluster' : `${copies} 1.30 clusters, each`} with ${nodes} Karpenter nodes in ${pools} NodePools${mngNodes ? ` and a ${mngNodes}-node managed node group` : ''}, ${PODS_PER_NODE} pods per node, PDBs`,
    calendarAsOf: '2025-06-15',
    eks: { versions: ['1.30', '1.31', '1.32', '1.33'], controlPlaneUpdateMinutes: 10 },
    clusters: names.map((name) => ({
        name,
        region: 'us-west-2',
        version: '1.30',
        tags: { env: 'bench' },
        vpc: {
          cidr: '10.0.0.0/16',
          subnets: ZONES.map((zone, j) => ({ zone, cidr: `10.0.${j * 64}.0/18`, availableIps: 16000 })),
        },
        nodegroups: mngNodes > 0
          ? [{ name: 'mng', amiType: 'AL2023_x86_64_STANDARD', instanceTypes: ['m5.large'], scaling: { min: 0, max: mngNodes * 2, desired: mngNodes }, updateConfig: { maxUnavailablePercentage: 10 } }]
          : [],
        addons: ['vpc-cni', 'coredns', 'kube-proxy'].map((addon) => ({ name: addon, version: defaultAddonVersion(addon, '1.30') })),
        karpenter: {
          ec2NodeClasses: poolNames.map((pool) => ({
            apiVersion: 'karpenter.k8s.aws/v1',
            kind: 'EC2NodeClass',
            metadata: { name: pool },
            spec: {
              amiFamily: 'AL2023',
              amiSelectorTerms: [{ alias: 'al2023@latest' }],
              role: 'karpenter-scale',
              subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': name } }],
              securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': name } }],
            },
          })),
          nodePools: poolNames.map((pool, i) => ({
            apiVersion: 'karpenter.sh/v1',
            kind: 'NodePool',
            metadata: { name: pool },
            spec: {
              disruption: { budgets: [{ nodes: '10%' }], consolidationPolicy: 'WhenEmpty', consolidateAfter: 'Never' },
              limits: { cpu: String(Math.max(8, nodesOf(i) * 2 * 3)) },
              template: {
                metadata: { labels: { pool } },
                spec: {
                  expireAfter: '720h',
                  nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: pool },
                  requirements: [
                    { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m5'] },
                    { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
                    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
                  ],
                  taints: [{ key: 'pool', value: pool, effect: 'NoSchedule' }],
                },
              },
            },
          })),
          nodes: karpenterNodes,
        },
        kubernetes,
      })),
  };
}

function workload(name: string, replicas: number, nodeSelector: Record<string, string>, tolerations: unknown[]): Array<Record<string, unknown>> {
  if (replicas === 0) return [];
  const labels = { app: name };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'apps', labels },
      spec: {
        replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            nodeSelector,
            tolerations,
            containers: [{ name: 'app', image: 'public.ecr.aws/docker/library/nginx:1.27', resources: { requests: { cpu: '100m', memory: '128Mi' } } }],
          },
        },
      },
    },
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name, namespace: 'apps' },
      spec: { maxUnavailable: '10%', selector: { matchLabels: labels } },
    },
  ];
}
