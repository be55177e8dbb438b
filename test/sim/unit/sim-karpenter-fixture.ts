import { amiIdFor, kubeletVersionFor } from '../../../src/sim/aws/eks/version-catalog.js';
import { createSimKubeStore } from '../../../src/sim/kube/index.js';
import { startKubeControllers } from '../../../src/sim/kube/controllers/start-kube-controllers.js';
import { startKarpenterController, seedKarpenterNodes } from '../../../src/sim/karpenter/index.js';
import { seededRandom } from '../../../src/sim/karpenter/seeded-random.js';
import { createManualClock } from '../../../src/sim/sim-clock.js';

/**
 * Seed 000's Karpenter drift lab on a manual clock: cluster eksworkshop-eksctl at 1.30, NodePool `default`
 * (team=checkout, dedicated=CheckoutApp:NoSchedule, WhenEmpty, expireAfter 720h) and EC2NodeClass `default` pinned
 * to the 1.30 AL2023 AMI, two initialized checkout nodes and the checkout deployment spread over them.
 */
export const AMI_130 = amiIdFor('1.30', 'AL2023');
export const AMI_131 = amiIdFor('1.31', 'AL2023');
export const KUBELET_131 = kubeletVersionFor('1.31');

export interface LabOptions {
  budgets?: Array<Record<string, unknown>>;
  amiSelectorTerms?: Array<Record<string, unknown>>;
  nodes?: number;
  replicas?: number;
  clusterVersion?: string;
  cpuRequest?: string;
}

export function checkoutPodTemplate(cpuRequest = '300m'): Record<string, unknown> {
  return {
    metadata: { labels: { app: 'checkout' } },
    spec: {
      nodeSelector: { team: 'checkout' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'CheckoutApp', effect: 'NoSchedule' }],
      containers: [{ name: 'checkout', image: 'public.ecr.aws/aws-containers/retail-store-sample-checkout:1.2.1', resources: { requests: { cpu: cpuRequest, memory: '512Mi' } } }],
    },
  };
}

export function createLab(options: LabOptions = {}) {
  const clock = createManualClock(Date.UTC(2026, 0, 5, 12, 0, 0));
  const cluster = { version: options.clusterVersion ?? '1.30' };
  const store = createSimKubeStore({ clusterName: 'eksworkshop-eksctl', gitVersion: kubeletVersionFor('1.30'), clock, random: seededRandom('lab-store') });
  const logs: Array<Record<string, any>> = [];
  store.create('ec2nodeclasses', {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name: 'default' },
    spec: {
      amiFamily: 'AL2023',
      amiSelectorTerms: options.amiSelectorTerms ?? [{ id: AMI_130 }],
      role: 'karpenter-eksworkshop-eksctl',
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'eksworkshop-eksctl' } }],
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'eksworkshop-eksctl' } }],
    },
  });
  store.create('nodepools', {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'default' },
    spec: {
      disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '30s', budgets: options.budgets ?? [{ nodes: '10%' }] },
      limits: { cpu: '100' },
      template: {
        metadata: { labels: { env: 'dev', team: 'checkout' } },
        spec: {
          expireAfter: '720h',
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m6a.large', 'c6a.large'] }],
          taints: [{ key: 'dedicated', value: 'CheckoutApp', effect: 'NoSchedule' }],
        },
      },
    },
  });
  const seeded = seedKarpenterNodes(store, {
    nodePool: 'default', count: options.nodes ?? 2, region: 'us-west-2', clusterVersion: cluster.version, now: clock.now(),
    instanceType: 'm6a.large', imageId: options.amiSelectorTerms ? undefined : AMI_130,
  });
  store.create('namespaces', { metadata: { name: 'checkout' } });
  const stops: Array<() => void> = [];
  const lab = {
    clock, store, logs, cluster, seeded,
    deploy(name: string, replicas: number, template = checkoutPodTemplate(options.cpuRequest)) {
      store.create('deployments', {
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'checkout' },
        spec: { replicas, selector: { matchLabels: (template as any).metadata.labels }, template },
      });
    },
    start() {
      stops.push(startKubeControllers(store, clock));
      stops.push(startKarpenterController({ store, clock, region: 'us-west-2', clusterVersion: () => cluster.version, log: (line) => logs.push(line) }));
    },
    stop() {
      for (const stop of stops.splice(0)) stop();
    },
    /** Advances sim time in steps, calling `check` after each (to assert invariants at every moment). */
    async run(ms: number, step = 1000, check?: () => void) {
      for (let t = 0; t < ms; t += step) {
        await clock.advance(step);
        check?.();
      }
    },
    karpenterNodes: () => store.list('nodes').filter((n) => n.metadata.labels?.['karpenter.sh/nodepool'] === 'default'),
    claims: () => store.list('nodeclaims'),
    pods: () => store.list('pods', 'checkout'),
    events: (reason?: string) => store.list('events').filter((e: any) => !reason || e.reason === reason),
    messages: () => logs.map((line) => line.message as string),
  };
  if (options.replicas !== 0) lab.deploy('checkout', options.replicas ?? 10);
  return lab;
}
