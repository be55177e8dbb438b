import { describe, expect, it } from 'vitest';
import type { AskGateCommand, CreateLaunchTemplateVersionCommand, PointGroupCommand, UpdateAddonCommand, UpdateClusterVersionCommand } from '../../jobs/engine/commands.js';
import { describeCommand, describeCommands, describeIssued } from '../../jobs/engine/describe-command.js';
import { completed, describeInstead, execute, halted, preview } from '../../jobs/engine/execute-commands.js';
import type { EksPort } from '../../src/ports/aws/eks-port.js';
import type { StepContext } from '../../jobs/engine/step-context.js';
import { fakeStepContext } from './step-fake-context.js';

/** The one executor: steps hand it commands; it acts, records and adopts — or, in a dry run, only describes. */
const update: UpdateClusterVersionCommand = {
  kind: 'update-cluster-version', cluster: 'demo', to: '1.31', token: 'j1-h1-control-plane', record: 'cluster', event: 'issued',
  notes: [' with force (the preflight was forced)'], after: 'AWS cannot pause or stop it once started.', force: true,
};
const addon: UpdateAddonCommand = {
  kind: 'update-addon', cluster: 'demo', addon: 'vpc-cni', from: 'v1.18.0', to: 'v1.19.0', goal: 'v1.20.0', token: 't', record: 'vpc-cni@v1.19.0#0', event: 'addon:vpc-cni:v1.19.0:issued',
};

/** An EKS whose update calls are counted; `inUse` answers ResourceInUseException with update u-running in flight. */
function countingEks(opts: { inUse?: boolean } = {}) {
  const calls: Array<{ op: string; args: unknown[] }> = [];
  const eks = {
    async updateClusterVersion(...args: unknown[]) {
      calls.push({ op: 'UpdateClusterVersion', args });
      if (opts.inUse) throw Object.assign(new Error('in use'), { name: 'ResourceInUseException' });
      return { id: 'u1' };
    },
    async updateAddon(...args: unknown[]) {
      calls.push({ op: 'UpdateAddon', args });
      return { id: 'a1' };
    },
    async listUpdates() {
      return ['u-running'];
    },
    async describeUpdate(_cluster: string, id: string) {
      return { id, status: 'InProgress', type: 'VersionUpdate' };
    },
  };
  return { eks: eks as unknown as EksPort, calls };
}

describe('describing commands (what a dry run says)', () => {
  it('says each call in the words the thread has always used', () => {
    expect(describeCommand(update)).toBe('would call UpdateClusterVersion demo → 1.31, then follow DescribeUpdate until it ends (about 10 minutes)');
    expect(describeCommand({ ...update, rollback: { timeoutMinutes: 240 } })).toContain('with rollbackConfig.timeoutMinutes 240 (a VersionRollback)');
    expect(describeCommand(addon)).toBe('would call UpdateAddon vpc-cni v1.18.0 → v1.19.0 (then on to v1.20.0)');
    expect(describeCommand({ ...addon, goal: 'v1.19.0' })).toBe('would call UpdateAddon vpc-cni v1.18.0 → v1.19.0');
    expect(describeCommand({ kind: 'set-nodepool-budgets', pool: 'default', budgets: [{ nodes: '1' }] })).toBe('would set the disruption budgets of NodePool default to nodes 1');
    expect(describeCommand({ kind: 'point-node-class', nodeClass: 'default', terms: [{ id: 'ami-1' }] })).toMatch(/^would set the amiSelectorTerms of EC2NodeClass default to .*ami-1/);
  });

  it('leaves bookkeeping out of a summary', () => {
    expect(describeCommands([{ kind: 'safe-point', before: 'x' }, { kind: 'verify-hop', cluster: 'demo', to: '1.31' }, { kind: 'save-state', patch: {} }])).toBe(
      'would check that demo is at 1.31 and ACTIVE, nodes within skew, deployments available, PDBs healthy',
    );
  });

  it('names why an update was forced in its "issued" line', () => {
    expect(describeIssued(update, 'u9')).toBe('UpdateClusterVersion demo → 1.31 with force (the preflight was forced) issued (update u9). AWS cannot pause or stop it once started.');
  });
});

describe('execute', () => {
  it('in a dry run describes the command and calls, records and saves nothing', async () => {
    const { eks, calls } = countingEks();
    const { ctx, data, events } = fakeStepContext({ eks, data: { dryRun: true } });
    expect(await execute(ctx, update)).toEqual({ kind: 'described', text: describeCommand(update) });
    expect(await execute(ctx, { kind: 'save-state', patch: { x: 1 } })).toEqual({ kind: 'done' });
    await execute(ctx, { kind: 'record-acted', acted: { resource: 'cluster/demo', action: 'update-control-plane', outcome: 'done' } });
    expect(calls).toEqual([]);
    expect(data.updates).toEqual({});
    expect(data.stepState).toEqual({});
    expect(data.acted).toEqual({});
    expect(events).toEqual([]);
    expect(preview(ctx, [addon])).toEqual({ outcome: 'dry-run', summary: describeCommand(addon) });
    expect(describeInstead(ctx, addon)).toBe(describeCommand(addon));
    expect(completed(ctx, 'x')).toEqual({ outcome: 'dry-run', summary: 'x' });
  });

  it('issues the update with its token, records it before the timeline says it was issued', async () => {
    const { eks, calls } = countingEks();
    const { ctx, data, events } = fakeStepContext({ eks });
    expect(await execute(ctx, update)).toEqual({ kind: 'update', updateId: 'u1' });
    expect(calls).toEqual([{ op: 'UpdateClusterVersion', args: ['demo', '1.31', 'j1-h1-control-plane', true, undefined] }]);
    expect(data.updates['h1-control-plane']?.cluster).toMatchObject({ updateId: 'u1', operation: 'UpdateClusterVersion', adopted: false });
    expect(events.map((e) => e.key)).toEqual(['j1:h1-control-plane:issued']);
    expect(preview(ctx, [update])).toBeUndefined();
    expect(describeInstead(ctx, update)).toBeUndefined();
    expect(completed(ctx, 'x')).toEqual({ outcome: 'done', summary: 'x' });
    await execute(ctx, addon);
    expect(calls[1]).toEqual({ op: 'UpdateAddon', args: ['demo', 'vpc-cni', { addonVersion: 'v1.19.0', resolveConflicts: undefined, clientRequestToken: 't' }] });
  });

  it('adopts the update EKS says is already running (ResourceInUseException) instead of starting another', async () => {
    const { eks, calls } = countingEks({ inUse: true });
    const { ctx, data, events } = fakeStepContext({ eks });
    expect(await execute(ctx, update)).toEqual({ kind: 'update', updateId: 'u-running' });
    expect(calls).toHaveLength(1);
    expect(data.updates['h1-control-plane']?.cluster).toMatchObject({ updateId: 'u-running', adopted: true });
    expect(events.map((e) => e.event.kind === 'note' || e.event.kind === 'progress' ? e.event.text : '').join('\n')).toContain('following update u-running rather than starting another');
  });

  it('records an adopted update only when it is not this job\'s own', async () => {
    const { ctx, data, events } = fakeStepContext();
    const adopt = { kind: 'adopt-update', updateId: 'u7', operation: 'UpdateClusterVersion', target: '1.31', record: 'cluster', note: { event: 'adopted', text: 'Adopted.' } } as const;
    await execute(ctx, { ...adopt, ours: true });
    expect(data.updates).toEqual({});
    await execute(ctx, { ...adopt, ours: false });
    expect(data.updates['h1-control-plane']?.cluster).toMatchObject({ updateId: 'u7', adopted: true });
    expect(events.map((e) => e.key)).toEqual(['j1:h1-control-plane:adopted']);
  });

  it('stops at a safe point on Abort, and runs straight through one in a dry run', async () => {
    const real = fakeStepContext();
    real.controls.abort = { by: 'U0APP', at: 1 };
    expect(await execute(real.ctx, { kind: 'safe-point', before: 'add-on vpc-cni' })).toMatchObject({ kind: 'stop', result: { outcome: 'abort', by: 'U0APP' } });
    const dry = fakeStepContext({ data: { dryRun: true } });
    dry.controls.abort = { by: 'U0APP', at: 1 };
    expect(await execute(dry.ctx, { kind: 'safe-point', before: 'add-on vpc-cni' })).toEqual({ kind: 'done' });
  });

  it('adopts a DeleteNodegroup EKS is already carrying out, and lets any other conflict stand', async () => {
    const inUse = () => Promise.reject(Object.assign(new Error('in use'), { name: 'ResourceInUseException' }));
    const eksReading = (status: string) => ({ deleteNodegroup: inUse, describeNodegroup: async () => ({ status }) }) as unknown as EksPort;
    const del = { kind: 'delete-nodegroup', cluster: 'demo', nodegroup: 'blue', record: 'blue:delete', event: 'bg:blue:delete', save: { 'ng:blue': { deleteIssued: true } } } as const;
    const deleting = fakeStepContext({ eks: eksReading('DELETING') });
    expect(await execute(deleting.ctx, del)).toEqual({ kind: 'done' });
    expect(deleting.data.updates['h1-control-plane']?.['blue:delete']).toMatchObject({ operation: 'DeleteNodegroup' });
    expect(deleting.data.stepState['h1-control-plane']).toEqual({ 'ng:blue': { deleteIssued: true } });
    const active = fakeStepContext({ eks: eksReading('ACTIVE') });
    await expect(execute(active.ctx, del)).rejects.toThrow('in use');
    expect(active.data.updates).toEqual({});
  });

  it('asks a gate: parks the job until it is answered, posts the card once, and hands back the answer', async () => {
    const { ctx, gates, events } = fakeStepContext();
    const ask: AskGateCommand = { kind: 'ask-gate', gate: { gateId: 'h1-x', title: 'Go on?', details: [], actions: ['continue', 'abort'] } };
    expect(await execute(ctx, ask)).toMatchObject({ kind: 'stop', result: { outcome: 'wait' } });
    expect(await execute(ctx, ask)).toMatchObject({ kind: 'stop', result: { outcome: 'wait' } });
    await gates.answer('j1', 'h1-x', 1, { action: 'continue', by: 'U0APP', at: 5, reason: 'ok' });
    expect(await execute(ctx, ask)).toEqual({ kind: 'answered', action: 'continue', by: 'U0APP', at: 5, reason: 'ok' });
    // One card (every run re-sends it under the same key, which the thread posts once), then its answer on it.
    expect(new Set(events.map((e) => `${e.event.kind} ${e.key}`))).toEqual(new Set(['gate-opened j1:h1-x:1', 'gate-answered j1:h1-x:1']));
    expect(gates.records.get('h1-x')?.answer).toMatchObject({ action: 'continue', by: 'U0APP' });
    // Asked again after reopen-gate: a fresh card at the next revision, the old answer no longer counts.
    await execute(ctx, { kind: 'reopen-gate', gateId: 'h1-x' });
    expect(await execute(ctx, ask)).toMatchObject({ kind: 'stop', result: { outcome: 'wait' } });
    expect(events.at(-1)).toMatchObject({ key: 'j1:h1-x:2', event: { kind: 'gate-opened' } });
  });

  it('records a skip gate\'s Force as the resource skipped, before the step hears it, and a re-run reads it so', async () => {
    const { ctx, gates, data } = fakeStepContext();
    const ask: AskGateCommand = {
      kind: 'ask-gate', gate: { gateId: 'h1-ng-a-custom-ami', title: 'Skip a?', details: [], actions: ['force', 'abort'] },
      skip: { resource: 'nodegroup/a', action: 'custom-ami-gate', stateKey: 'ng:a', state: { from: '1.30' }, why: 'custom AMI' },
    };
    await execute(ctx, ask);
    expect(data.acted).toEqual({});
    await gates.answer('j1', 'h1-ng-a-custom-ami', 1, { action: 'force', by: 'U0APP', at: 5, reason: 'later' });
    expect(await execute(ctx, ask)).toMatchObject({ kind: 'answered', action: 'force', skipped: 'custom AMI, skipped by <@U0APP>: later' });
    expect(data.stepState['h1-control-plane']?.['ng:a']).toEqual({ from: '1.30', final: 'skipped', note: 'custom AMI, skipped by <@U0APP>: later' });
    expect(Object.values(data.acted['h1-control-plane'] ?? {})).toEqual([{ resource: 'nodegroup/a', action: 'custom-ami-gate', to: '1.31', outcome: 'skipped', note: 'custom AMI, skipped by <@U0APP>: later' }]);
  });

  it('in a dry run describes a gate ("would ask …"), opens no card and saves nothing', async () => {
    const { ctx, gates, data, events } = fakeStepContext({ data: { dryRun: true } });
    const ask: AskGateCommand = { kind: 'ask-gate', gate: { gateId: 'h1-x', title: 'Go on?', details: [], actions: ['continue', 'abort'] } };
    expect(await execute(ctx, ask)).toEqual({ kind: 'described', text: 'would ask the approvers "Go on?" (Continue / Abort) and wait for an answer' });
    expect(await execute(ctx, { ...ask, said: 'a: would stop at a gate: no AMI' })).toEqual({ kind: 'described', text: 'a: would stop at a gate: no AMI' });
    expect(await execute(ctx, { kind: 'reopen-gate', gateId: 'h1-x' })).toEqual({ kind: 'done' });
    expect(gates.records.size).toBe(0);
    expect(data.stepState).toEqual({});
    expect(events).toEqual([]);
  });

  it('points a group at a launch template version (the default first; after the group when it goes back), saves, then says so', async () => {
    const calls: string[] = [];
    const { ctx, data, events } = fakeStepContext();
    const acting: StepContext = {
      ...ctx,
      ec2: { ...ctx.ec2, setDefaultLaunchTemplateVersion: async (id: string, version: number) => void calls.push(`default ${id} ${version}`) },
      autoScaling: { setLaunchTemplate: async (group: string, lt: { id: string; version: string }) => void calls.push(`group ${group} ${lt.id} ${lt.version}`) } as unknown as StepContext['autoScaling'],
    };
    const point: PointGroupCommand = { kind: 'point-group', group: 'smg', launchTemplateId: 'lt-1', version: '3', defaultVersion: 3, save: { 'smg:smg': { newVersion: 3 } }, event: 'smg:smg:pointed', text: 'smg: pointed.' };
    await execute(acting, point);
    // A repeat (a lost answer, a re-run after a crash) sets the same values again and says nothing new.
    await execute(acting, point);
    expect(calls).toEqual(['default lt-1 3', 'group smg lt-1 3', 'default lt-1 3', 'group smg lt-1 3']);
    expect(data.stepState['h1-control-plane']).toEqual({ 'smg:smg': { newVersion: 3 } });
    expect(new Set(events.map((e) => `${e.event.kind} ${e.key}`))).toEqual(new Set(['progress j1:h1-control-plane:smg:smg:pointed']));
    calls.length = 0;
    await execute(acting, { ...point, version: '1', defaultVersion: 1, restore: true, event: 'smg:smg:restored' });
    expect(calls).toEqual(['group smg lt-1 1', 'default lt-1 1']);
    expect(events.at(-1)).toMatchObject({ key: 'j1:h1-control-plane:smg:smg:restored', event: { kind: 'note', text: 'smg: pointed.' } });
    expect(describeCommand(point)).toBe("would point smg at launch template version 3 (the template's default 3)");
  });

  it('creates a launch template version with only the image changed and names it on the timeline', async () => {
    const { ctx, events } = fakeStepContext();
    const sources: unknown[] = [];
    const acting: StepContext = { ...ctx, ec2: { ...ctx.ec2, createLaunchTemplateVersion: async (id: string, from: unknown) => (sources.push({ id, from }), 7) } };
    const create: CreateLaunchTemplateVersionCommand = {
      kind: 'create-launch-template-version', group: 'custom', launchTemplateId: 'lt-9', template: 'custom-lt', sourceVersion: '2', imageId: 'ami-new', source: 'clusters.yaml', description: 'eks-upgrade-bot j1: 1.31', event: 'ng:custom:lt-version:{version}',
    };
    expect(await execute(acting, create)).toEqual({ kind: 'version', version: 7 });
    expect(sources).toEqual([{ id: 'lt-9', from: { sourceVersion: '2', imageId: 'ami-new', description: 'eks-upgrade-bot j1: 1.31' } }]);
    expect(events).toMatchObject([{ key: 'j1:h1-control-plane:ng:custom:lt-version:7', event: { kind: 'progress', text: 'custom: launch template custom-lt version 7 created from version 2 with ami-new (clusters.yaml).' } }]);
  });

  it('in a dry run describes a drain remedy and a forced drain and touches no Kubernetes object', async () => {
    // This context has no Kubernetes API: any call would throw.
    const { ctx } = fakeStepContext({ data: { dryRun: true } });
    const remedy = { label: 'Scale orders to 2', namespace: 'orders', deployment: 'orders', replicas: 2 };
    expect(await execute(ctx, { kind: 'scale-for-drain', remedy })).toEqual({ kind: 'described', text: 'would Scale orders to 2: scale orders/orders to 2 replicas and wait until they are available' });
    expect(await execute(ctx, { kind: 'force-drain', nodes: ['ip-10-0-1-1'], by: 'U0APP' })).toEqual({ kind: 'described', text: 'would delete the pods the PDBs protect on ip-10-0-1-1 (Force by U0APP)' });
    expect(await execute(ctx, { kind: 'cordon-node', node: 'ip-10-0-1-1' })).toEqual({ kind: 'described', text: 'would cordon ip-10-0-1-1' });
    expect(halted({ kind: 'described', text: 'x' })).toEqual({ outcome: 'dry-run', summary: 'x' });
  });

  it('puts, completes and removes the drain hook, adopting a ValidationError (already done) and letting any other error stand', async () => {
    const calls: string[] = [];
    let fail: string | undefined;
    const call = (op: string) => async (...args: unknown[]) => {
      calls.push(`${op} ${args.join(' ')}`);
      if (fail) throw Object.assign(new Error(fail), { name: fail });
    };
    const { ctx } = fakeStepContext();
    const acting: StepContext = {
      ...ctx,
      autoScaling: { putTerminationHook: call('put'), completeLifecycleAction: call('complete'), deleteLifecycleHook: call('delete'), cancelInstanceRefresh: call('cancel') } as unknown as StepContext['autoScaling'],
    };
    await execute(acting, { kind: 'put-drain-hook', group: 'smg', hook: 'h', heartbeatSeconds: 1800 });
    fail = 'ValidationError';
    expect(await execute(acting, { kind: 'complete-drain-hook', group: 'smg', hook: 'h', instanceId: 'i-1' })).toEqual({ kind: 'done' });
    expect(await execute(acting, { kind: 'remove-drain-hook', group: 'smg', hook: 'h' })).toEqual({ kind: 'done' });
    expect(await execute(acting, { kind: 'cancel-instance-refresh', group: 'smg' })).toEqual({ kind: 'done' });
    fail = 'Throttling';
    await expect(execute(acting, { kind: 'remove-drain-hook', group: 'smg', hook: 'h' })).rejects.toThrow('Throttling');
    expect(calls).toEqual(['put smg h 1800', 'complete smg h i-1', 'delete smg h', 'cancel smg', 'delete smg h']);
    const dry = fakeStepContext({ data: { dryRun: true } });
    expect(await execute(dry.ctx, { kind: 'put-drain-hook', group: 'smg', hook: 'h', heartbeatSeconds: 1800 })).toEqual({ kind: 'described', text: 'would put the termination lifecycle hook h on smg (heartbeat 1800 s)' });
  });
});

