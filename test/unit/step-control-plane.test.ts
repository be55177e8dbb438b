import type { Update } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { controlPlaneStep } from '../../jobs/steps/control-plane/control-plane-step.js';
import type { EksPort } from '../../src/ports/aws/eks-port.js';
import { StepFailure } from '../../jobs/engine/step-context.js';
import type { UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import { fakeStepContext } from './step-fake-context.js';

/** A tiny EKS: one cluster; an update ends `polls` DescribeUpdate calls after it starts, Successful or with `fail`. */
function fakeEks(opts: { version?: string; polls?: number; fail?: { errorCode: string; errorMessage: string }; existing?: Update[] } = {}) {
  const calls: string[] = [];
  let version = opts.version ?? '1.30';
  const updates: Update[] = [...(opts.existing ?? [])];
  const reads = new Map<string, number>();
  const eks = {
    async describeCluster() {
      calls.push('DescribeCluster');
      return { name: 'demo', version, status: updates.some((u) => u.status === 'InProgress') ? 'UPDATING' : 'ACTIVE' };
    },
    async listUpdates() {
      return updates.map((u) => u.id!);
    },
    async describeUpdate(_cluster: string, id: string) {
      const update = updates.find((u) => u.id === id)!;
      const count = (reads.get(id) ?? 0) + 1;
      reads.set(id, count);
      if (update.status === 'InProgress' && count > (opts.polls ?? 2)) {
        if (opts.fail) Object.assign(update, { status: 'Failed', errors: [opts.fail] });
        else {
          update.status = 'Successful';
          version = update.params!.find((p) => p.type === 'Version')!.value!;
        }
      }
      return { ...update };
    },
    async updateClusterVersion(_cluster: string, target: string) {
      calls.push('UpdateClusterVersion');
      if (updates.some((u) => u.status === 'InProgress')) throw Object.assign(new Error('in use'), { name: 'ResourceInUseException' });
      const update: Update = { id: `u${updates.length + 1}`, status: 'InProgress', type: 'VersionUpdate', params: [{ type: 'Version', value: target }] };
      updates.push(update);
      return { ...update };
    },
  } as unknown as EksPort;
  return { eks, calls, updates };
}

function context(eks: EksPort, data: Partial<UpgradeJobData> = {}) {
  return fakeStepContext({ eks, data });
}

describe('control-plane step', () => {
  it('issues one UpdateClusterVersion, records its id, and follows it to the target', async () => {
    const world = fakeEks();
    const { ctx, data, events } = context(world.eks);
    const result = await controlPlaneStep(ctx);
    expect(result).toMatchObject({ outcome: 'done' });
    expect(world.calls.filter((c) => c === 'UpdateClusterVersion')).toHaveLength(1);
    expect(data.updates['h1-control-plane'].cluster).toMatchObject({ updateId: 'u1', adopted: false, operation: 'UpdateClusterVersion' });
    expect(events.map((e) => e.key)).toEqual(['j1:h1-control-plane:issued']);
  });

  it('re-run after a crash follows the recorded update instead of issuing another', async () => {
    const world = fakeEks({ existing: [{ id: 'u1', status: 'InProgress', type: 'VersionUpdate', params: [{ type: 'Version', value: '1.31' }] }] });
    const { ctx } = context(world.eks, {
      updates: { 'h1-control-plane': { cluster: { updateId: 'u1', operation: 'UpdateClusterVersion', target: '1.31', at: 0, adopted: false } } },
    } as Partial<UpgradeJobData>);
    expect(await controlPlaneStep(ctx)).toMatchObject({ outcome: 'done' });
    expect(world.calls).not.toContain('UpdateClusterVersion');
  });

  it('adopts an update someone else started and says so', async () => {
    const world = fakeEks({ existing: [{ id: 'theirs', status: 'InProgress', type: 'VersionUpdate', params: [{ type: 'Version', value: '1.31' }] }] });
    const { ctx, data, events } = context(world.eks);
    expect(await controlPlaneStep(ctx)).toMatchObject({ outcome: 'done' });
    expect(world.calls).not.toContain('UpdateClusterVersion');
    expect(data.updates['h1-control-plane'].cluster).toMatchObject({ updateId: 'theirs', adopted: true });
    expect(events[0].event).toMatchObject({ kind: 'note', text: expect.stringMatching(/^Adopted: a version update of demo to 1.31/) });
  });

  it('fails permanently with the AWS error code, message and a remedy when the update fails', async () => {
    const world = fakeEks({ fail: { errorCode: 'IpNotAvailable', errorMessage: 'subnet-1 has 0 free IPs' } });
    const { ctx } = context(world.eks);
    const error = await controlPlaneStep(ctx).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(StepFailure);
    expect((error as StepFailure).message).toMatch(/Upgrading the control plane of demo to 1.31 failed \(update u1 ended Failed\): IpNotAvailable: subnet-1 has 0 free IPs/);
    expect((error as StepFailure).remedy).toMatch(/free IP addresses/);
    expect((error as StepFailure).code).toBe('IpNotAvailable');
  });

  it('does nothing when the cluster is already at the target, and only reports in a dry run', async () => {
    const done = fakeEks({ version: '1.31' });
    expect(await controlPlaneStep(context(done.eks).ctx)).toMatchObject({ outcome: 'done', summary: 'demo is already at 1.31; nothing to do' });
    const dry = fakeEks();
    const result = await controlPlaneStep(context(dry.eks, { dryRun: true }).ctx);
    expect(result).toMatchObject({ outcome: 'dry-run', summary: expect.stringContaining('would call UpdateClusterVersion demo → 1.31') });
    expect(dry.calls).not.toContain('UpdateClusterVersion');
  });
});
