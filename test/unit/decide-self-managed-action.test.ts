import { describe, expect, it } from 'vitest';
import { decideAbortRestore, decideSelfManagedAction, selfManagedWorldDecision, type GroupInstanceView, type SelfManagedView } from '../../src/planning/deciders/decide-self-managed-action.js';

/** The self-managed decider: from what AWS and Kubernetes say plus the job's record, the one next action. */
const OLD = 'ami-0078a0f78fafda978';
const NEW = 'ami-086414611b43bb691';
const node = (name: string, minor: string, ready = true) => ({ name, minor, ready });
const instance = (id: string, version: string, minor: string, state = 'InService'): GroupInstanceView => ({ instanceId: id, lifecycleState: state, launchTemplateVersion: version, node: node(`ip-${id}`, minor) });

function view(overrides: Partial<SelfManagedView> = {}): SelfManagedView {
  return {
    target: '1.26',
    strategy: 'rolling',
    targetImageId: NEW,
    launchTemplateId: 'lt-01',
    groupVersion: '1',
    versions: [{ version: 1, imageId: OLD, isDefault: true }],
    instances: [instance('i-a', '1', '1.25'), instance('i-b', '1', '1.25')],
    desiredCapacity: 2,
    state: {},
    ...overrides,
  };
}
const withNewVersion = (overrides: Partial<SelfManagedView> = {}) =>
  view({ groupVersion: '2', versions: [{ version: 1, imageId: OLD, isDefault: false }, { version: 2, imageId: NEW, isDefault: true }], state: { newVersion: 2 }, ...overrides });

describe('decideSelfManagedAction', () => {
  it('creates a version copied from the group\'s own with only the image changed, then points the group at it', () => {
    expect(decideSelfManagedAction(view())).toEqual({ kind: 'create-version', sourceVersion: '1', imageId: NEW });
    // A version with the target AMI already exists (created before a crash): it is reused, not created again.
    const found = view({ versions: [{ version: 1, imageId: OLD, isDefault: true }, { version: 2, imageId: NEW, isDefault: false }] });
    expect(decideSelfManagedAction(found)).toEqual({ kind: 'point-group', version: 2, setDefault: true });
  });

  it('replaces InService instances behind the target one at a time, skipping ones still starting', () => {
    expect(decideSelfManagedAction(withNewVersion())).toEqual({ kind: 'replace', instanceId: 'i-a', node: 'ip-i-a' });
    const booting = withNewVersion({ instances: [{ instanceId: 'i-a', lifecycleState: 'Pending', launchTemplateVersion: '1' }, instance('i-c', '2', '1.26')] });
    expect(decideSelfManagedAction(booting)).toMatchObject({ kind: 'wait' });
  });

  it('finishes a recorded replacement before anything else, whether or not its termination was issued', () => {
    const recorded = withNewVersion({ state: { newVersion: 2, current: { instanceId: 'i-a', node: 'ip-i-a', terminated: true } } });
    expect(decideSelfManagedAction(recorded)).toEqual({ kind: 'finish-replacement', instanceId: 'i-a', node: 'ip-i-a', terminated: true });
    const notYet = withNewVersion({ state: { newVersion: 2, current: { instanceId: 'i-a', node: 'ip-i-a' } } });
    expect(decideSelfManagedAction(notYet)).toMatchObject({ kind: 'finish-replacement', terminated: false });
  });

  it('is done only when the group is back at its desired capacity with every node Ready at the target', () => {
    const short = withNewVersion({ instances: [instance('i-c', '2', '1.26')] });
    expect(decideSelfManagedAction(short)).toEqual({ kind: 'wait', reason: '1/2 nodes Ready at 1.26' });
    const done = withNewVersion({ instances: [instance('i-c', '2', '1.26'), instance('i-d', '2', '1.26')] });
    expect(decideSelfManagedAction(done)).toEqual({ kind: 'done', upgraded: 2, total: 2 });
  });

  it('leaves a group already at the target alone (no launch template version)', () => {
    expect(decideSelfManagedAction(view({ instances: [instance('i-a', '1', '1.26')], desiredCapacity: 1 }))).toEqual({ kind: 'done', upgraded: 1, total: 1 });
  });

  it('with instance-refresh: starts one, follows the one it recorded, and starts none while nothing is behind', () => {
    const refresh = withNewVersion({ strategy: 'instance-refresh' });
    expect(decideSelfManagedAction(refresh)).toEqual({ kind: 'start-refresh' });
    const running = withNewVersion({ strategy: 'instance-refresh', state: { newVersion: 2, refreshId: 'r-1' }, refresh: { id: 'r-1', status: 'InProgress' } });
    expect(decideSelfManagedAction(running)).toEqual({ kind: 'follow-refresh', refreshId: 'r-1' });
    const someoneElses = withNewVersion({ strategy: 'instance-refresh', refresh: { id: 'r-0', status: 'Successful' } });
    expect(decideSelfManagedAction(someoneElses)).toEqual({ kind: 'start-refresh' });
  });
});

describe('decideAbortRestore', () => {
  const previous = { groupVersion: '1', defaultVersion: 1 };
  it('restores the previous version and default while no instance has moved', () => {
    expect(decideAbortRestore({ ...withNewVersion(), state: { previous, newVersion: 2 } })).toEqual(previous);
  });
  it('keeps the new version once a node runs it', () => {
    const moved = withNewVersion({ instances: [instance('i-a', '1', '1.25'), instance('i-c', '2', '1.26')] });
    expect(decideAbortRestore({ ...moved, state: { previous, newVersion: 2 } })).toBeUndefined();
    expect(decideAbortRestore({ ...withNewVersion(), state: { previous, newVersion: 2, replaced: ['i-x'] } })).toBeUndefined();
  });
  it('keeps the new version once the job asked to terminate an instance, though the group still lists it (issue 23)', () => {
    expect(decideAbortRestore({ ...withNewVersion(), state: { previous, newVersion: 2, current: { instanceId: 'i-a', node: 'ip-i-a', terminated: true } } })).toBeUndefined();
  });
});

describe('selfManagedWorldDecision (what the plan names, checked by the step)', () => {
  it('a group with a live node below the target needs a roll; one whose nodes are all there is at target', () => {
    expect(selfManagedWorldDecision('carts', [instance('i-a', '1', '1.25'), instance('i-b', '2', '1.26')], '1.26')).toMatchObject({ resource: 'asg/carts', action: 'roll-self-managed' });
    expect(selfManagedWorldDecision('carts', [instance('i-b', '2', '1.26'), instance('i-a', '1', '1.25', 'Terminated')], '1.26')).toMatchObject({ resource: 'asg/carts', action: 'at-target' });
  });
});
