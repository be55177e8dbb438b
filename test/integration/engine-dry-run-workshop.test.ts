import { afterEach, describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';

/**
 * A dry run of the workshop (seed 004) 1.25 → 1.26, which has every kind of compute: each step's summary says what
 * it would do, in the words the executor (jobs/engine/execute-commands.ts) gives each command, and nothing is changed.
 */
const config = parseClustersConfig({
  clusters: [
    {
      name: 'eksworkshop-eksctl', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'],
      karpenter: { upgradeBudget: '1' },
      nodegroups: { 'blue-mng*': { strategy: 'blue-green' }, '*': { strategy: 'in-place' } },
    },
  ],
});
let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
});

describe('a dry run of the workshop cluster', () => {
  it('describes every command of every step and calls nothing that changes the cluster', async () => {
    h = await startEngineHarness({ scenario: 'workshop', speed: 600, config });
    const engine = h.engine();
    await engine.startWorker();
    const { job } = await h.start(engine.control, h.request({ cluster: 'eksworkshop-eksctl', channel: 'C0OPS', to: '1.26', dryRun: true }), '1.25');
    const ended = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted'], 120_000);
    expect(ended.state, JSON.stringify(h.thread.events('step-failed'))).toBe('succeeded');
    expect(h.sim.world.calls).toHaveLength(0);
    // Every gate of the run (the preflight's, the hop's, the custom-AMI group's) was described, none asked.
    expect(h.thread.events('gate-opened')).toHaveLength(0);
    const summaries = Object.fromEntries(h.thread.events('step-finished').map((e) => (e.kind === 'step-finished' ? [e.step, e.summary] : ['', ''])));
    expect(summaries['h1-preflight']).toMatch(/^would stop here: INS001 /);
    expect(summaries['h1-gate-control-plane']).toBe('would ask the approvers "Upgrade the control plane of eksworkshop-eksctl to 1.26?" (Continue / Abort) and wait for an answer');
    expect(summaries['h1-control-plane']).toBe('would call UpdateClusterVersion eksworkshop-eksctl → 1.26, then follow DescribeUpdate until it ends (about 10 minutes)');
    expect(summaries['h1-addons']).toMatch(/would call UpdateAddon coredns v\S+ → v\S+/);
    expect(summaries['h1-managed-nodegroups']).toMatch(/would create (blue-mng-\d+)-1-26 as a 1\.26 clone of \1, wait until Ready, ask, then delete \1/);
    expect(summaries['h1-managed-nodegroups']).toMatch(/would call UpdateNodegroupVersion \S+ 1\.25 → 1\.26 \(in place\)/);
    expect(summaries['h1-managed-nodegroups']).toMatch(/pinned to a custom AMI \(launch template \S+\); would stop at a gate asking for a 1\.26 launch template version, or Force to skip it/);
    expect(summaries['h1-karpenter']).toMatch(/^would: NodePool default .*budget nodes 10% → nodes 1 .*amiSelectorTerms id ami-\S+ → id ami-\S+/);
    expect(summaries['h1-self-managed']).toMatch(/^default-selfmng-\w+: would add a launch template version with ami-\S+ \(the 1\.26 AL2 x86_64 AMI .*\) and replace its 2 instance\(s\) by the bot, one node at a time/);
    expect(summaries['h1-fargate']).toBe('would restart deployment assets/assets (1 pod(s)) one at a time (as kubectl rollout restart) so their pods move to 1.26 Fargate nodes');
    expect(summaries['h1-verify']).toBe('would check that eksworkshop-eksctl is at 1.26 and ACTIVE, nodes within skew, deployments available, PDBs healthy');
  }, 240_000);
});
