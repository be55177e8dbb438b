import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube-types/kube-object.js';
import { kubeletVersionFor } from '../../../src/sim/aws/eks/version-catalog.js';
import { AMI_130, createLab } from './sim-karpenter-fixture.js';

type Lab = ReturnType<typeof createLab>;
let lab: Lab | undefined;
afterEach(() => lab?.stop());

const logTime = (target: Lab, message: string) => Date.parse(target.logs.find((l) => l.message === message)!.time);

describe('Karpenter provisioning for unschedulable pods', () => {
  it('launches, registers and initializes a node that carries the NodePool template, and the pods run on it', async () => {
    lab = createLab({ nodes: 0, replicas: 3 });
    const firstSight: KubeObject[] = [];
    lab.store.subscribe((event) => {
      if (event.resource === 'nodes' && event.type === 'ADDED') firstSight.push(event.object);
    });
    lab.start();
    await lab.run(5 * 60_000, 1_000);

    const [claim] = lab.claims();
    expect(lab.claims()).toHaveLength(1);
    expect(claim.metadata.name).toMatch(/^default-[a-z0-9]{5}$/);
    expect(claim.status.imageID).toBe(AMI_130);
    expect(claim.status.conditions.filter((c: any) => c.status === 'True').map((c: any) => c.type)).toEqual(['Launched', 'Registered', 'Initialized', 'Ready']);
    expect(claim.metadata.annotations).toMatchObject({ 'karpenter.sh/nodepool-hash-version': 'v3', 'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v4' });

    const [node] = lab.karpenterNodes();
    expect(node.metadata.name).toBe(claim.status.nodeName);
    expect(node.spec.providerID).toBe(claim.status.providerID);
    expect(node.metadata.labels).toMatchObject({
      team: 'checkout', env: 'dev', 'karpenter.sh/nodepool': 'default', 'karpenter.sh/capacity-type': 'on-demand',
      'karpenter.k8s.aws/ec2nodeclass': 'default', 'karpenter.sh/initialized': 'true', 'karpenter.sh/registered': 'true',
      'node.kubernetes.io/instance-type': expect.stringMatching(/^(c6a|m6a)\.large$/), 'topology.kubernetes.io/zone': expect.stringMatching(/^us-west-2[abc]$/),
    });
    expect(node.spec.taints).toEqual([{ key: 'dedicated', value: 'CheckoutApp', effect: 'NoSchedule' }]);
    expect(node.status.nodeInfo.kubeletVersion).toBe(kubeletVersionFor('1.30'));
    // The kubelet registers with karpenter.sh/unregistered, which Karpenter takes off.
    expect(firstSight[0].spec.taints).toContainEqual({ key: 'karpenter.sh/unregistered', effect: 'NoExecute' });

    const running = lab.pods().filter((p) => p.status?.phase === 'Running');
    expect(running.map((p) => p.spec.nodeName)).toEqual([node.metadata.name, node.metadata.name, node.metadata.name]);

    const order = ['created nodeclaim', 'launched nodeclaim', 'registered nodeclaim', 'initialized nodeclaim'];
    expect(lab.messages().filter((m) => order.includes(m))).toEqual(order);
    const launchedAfter = logTime(lab, 'launched nodeclaim') - logTime(lab, 'created nodeclaim');
    expect(launchedAfter).toBeGreaterThanOrEqual(15_000);
    expect(launchedAfter).toBeLessThanOrEqual(60_000);
    expect(logTime(lab, 'registered nodeclaim') - logTime(lab, 'launched nodeclaim')).toBeGreaterThanOrEqual(25_000);
    expect(logTime(lab, 'initialized nodeclaim') - logTime(lab, 'registered nodeclaim')).toBeGreaterThanOrEqual(15_000);
    const created = lab.logs.find((l) => l.message === 'created nodeclaim')!;
    expect(created).toMatchObject({ level: 'INFO', logger: 'controller', controller: 'provisioner', NodePool: { name: 'default' }, NodeClaim: { name: claim.metadata.name } });
    expect(lab.events('Nominated').map((e: any) => e.message)).toContain(`Pod should schedule on: nodeclaim/${claim.metadata.name}`);
    expect(lab.store.get('nodepools', 'default')!.status.resources.nodes).toBe('1');
  });

  it('batches a scale-up into as few nodes as fit the pods, not one per pod', async () => {
    lab = createLab({ replicas: 10 });
    lab.start();
    await lab.run(10_000);
    lab.store.mutate('deployments', 'checkout', 'checkout', (d) => {
      d.spec.replicas = 20;
    });
    await lab.run(5 * 60_000, 1_000);
    // 10 more pods of 300m: five or six fit on a large node, so two new nodes.
    expect(lab.karpenterNodes()).toHaveLength(4);
    expect(lab.pods().filter((p) => p.status?.phase === 'Running')).toHaveLength(20);
  });

  it('leaves pods that tolerate no NodePool taint alone, with a FailedScheduling event from Karpenter', async () => {
    lab = createLab({ nodes: 0, replicas: 0 });
    lab.deploy('ui', 1, { metadata: { labels: { app: 'ui' } }, spec: { containers: [{ name: 'ui', image: 'ui:1', resources: { requests: { cpu: '100m' } } }] } });
    lab.start();
    await lab.run(2 * 60_000, 5_000);
    expect(lab.claims()).toEqual([]);
    const failed = lab.events('FailedScheduling').filter((e: any) => e.source.component === 'karpenter');
    expect(failed[0].message).toBe('Failed to schedule pod, incompatible with nodepool "default", did not tolerate dedicated=CheckoutApp:NoSchedule');
  });
});
