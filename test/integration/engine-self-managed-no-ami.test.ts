import { afterEach, describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { answerGatesUntilEnded, startEngineHarness, type EngineHarness } from './engine-harness.js';

/**
 * The workshop 1.25 → 1.26 with the self-managed carts group on nodes that are not EKS-optimized (Ubuntu): the bot
 * has no AMI to roll it onto, asks at the "no AMI source" gate, and Force skips the group — recorded as skipped with
 * who and why, the group left on its launch template and its nodes untouched — while the rest of the upgrade finishes.
 */
const CLUSTER = 'eksworkshop-eksctl';
const GROUP = 'default-selfmng-2025032502302075740000002b';
const UBUNTU = 'Ubuntu 22.04.4 LTS';
const config = parseClustersConfig({
  clusters: [{ name: CLUSTER, region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], karpenter: { upgradeBudget: '1' } }],
});
let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('upgrade engine: a self-managed group with no AMI source', () => {
  it('asks what to do, and Force skips the group by name while the rest of the cluster reaches 1.26', async () => {
    h = await startEngineHarness({ scenario: 'workshop', speed: 600, config });
    const cluster = h.sim.world.cluster(CLUSTER)!;
    const groupNodes = () => cluster.store.list('nodes').filter((n) => n.metadata.labels?.['alpha.eksctl.io/nodegroup-name'] === GROUP);
    expect(groupNodes()).toHaveLength(2);
    for (const node of groupNodes()) cluster.store.update('nodes', { ...node, status: { ...node.status, nodeInfo: { ...node.status.nodeInfo, osImage: UBUNTU } } });
    const template = () => h!.sim.world.launchTemplates.get(h!.sim.world.autoScalingGroups.get(GROUP)!.launchTemplate.id)!;
    const versionsBefore = [...template().versions.keys()];

    const engine = h.engine();
    await engine.startWorker();
    const { job } = await h.start(engine.control, h.request({ cluster: CLUSTER, channel: 'C0OPS', to: '1.26' }), '1.25');
    const { job: ended, gates } = await answerGatesUntilEnded(engine, h.thread, job.jobId, (gate) => {
      if (gate.title.startsWith(`Self-managed group ${GROUP}`)) return { action: 'force', reason: 'carts moves to Bottlerocket next sprint' };
      if (gate.gateId.endsWith('-preflight') || gate.gateId.endsWith('-custom-ami')) return { action: 'force', reason: 'reviewed for this test' };
      if (gate.actions.includes('remedy')) return { action: 'remedy' };
      return { action: 'continue' };
    });
    expect(h.thread.events('step-failed')).toEqual([]);
    expect(ended.state).toBe('succeeded');
    expect(cluster.version).toBe('1.26');

    // The gate says why the bot has no AMI and what to add to clusters.yaml, and offers Force and Abort.
    const noAmi = gates.filter((g) => g.title === `Self-managed group ${GROUP} has no 1.26 AMI source. Skip it, or abort?`);
    expect(noAmi).toHaveLength(1);
    expect(noAmi[0].details).toContain(`${GROUP} has no AMI source for 1.26: its nodes run "${UBUNTU}", not an EKS-optimized one.`);
    expect(noAmi[0].details.join('\n')).toContain(`add \`selfManaged: { ${GROUP}: { amiParameter: "/my/amis/{minor}/image_id" } }\``);

    // Skipped by name, with who and why, in the step's summary; nothing of the group was changed.
    const finished = h.thread.events('step-finished').find((e) => e.kind === 'step-finished' && e.step.endsWith('-self-managed'));
    expect(finished?.kind === 'step-finished' && finished.summary).toContain(`${GROUP}: no AMI source, skipped by <@U0APP>: carts moves to Bottlerocket next sprint`);
    expect(h.calls('TerminateInstanceInAutoScalingGroup')).toEqual([]);
    expect([...template().versions.keys()]).toEqual(versionsBefore);
    expect(h.sim.world.autoScalingGroups.get(GROUP)!.launchTemplate.version).toBe('1');
    expect(groupNodes().map((n) => String(n.status.nodeInfo.kubeletVersion).slice(0, 6))).toEqual(['v1.25.', 'v1.25.']);
  }, 180_000);
});
