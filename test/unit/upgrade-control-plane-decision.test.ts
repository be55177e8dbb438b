import type { Update } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { decideControlPlaneAction, type ControlPlaneWorld } from '../../src/planning/deciders/decide-control-plane-action.js';

function update(id: string, status: string, type = 'VersionUpdate', version = '1.31'): Update {
  return { id, status: status as Update['status'], type: type as Update['type'], params: [{ type: 'Version', value: version }], errors: [] };
}

const base: ControlPlaneWorld = { clusterName: 'demo', clusterVersion: '1.30', hopFrom: '1.30', target: '1.31', updates: [] };

describe('decideControlPlaneAction', () => {
  it('issues UpdateClusterVersion only when the cluster is at the hop start and nothing is in progress', () => {
    expect(decideControlPlaneAction(base).action).toBe('issue');
    expect(decideControlPlaneAction({ ...base, updates: [update('old', 'Successful', 'VersionUpdate', '1.30')] }).action).toBe('issue');
  });

  it('is done when the cluster is already at the target', () => {
    const decision = decideControlPlaneAction({ ...base, clusterVersion: '1.31', updates: [update('u1', 'Successful')] });
    expect(decision).toMatchObject({ action: 'done', reason: 'demo is already at 1.31' });
  });

  it('follows the update this job recorded while it is in progress (a resumed job never issues twice)', () => {
    const decision = decideControlPlaneAction({ ...base, recorded: update('u1', 'InProgress'), updates: [update('u1', 'InProgress')] });
    expect(decision).toMatchObject({ action: 'adopt', updateId: 'u1', ours: true });
  });

  it('adopts a version update to the target started by someone else', () => {
    const decision = decideControlPlaneAction({ ...base, updates: [update('theirs', 'InProgress')] });
    expect(decision).toMatchObject({ action: 'adopt', updateId: 'theirs', ours: false });
    expect(decision.reason).toMatch(/already in progress; following it instead of starting another/);
  });

  it('reports the recorded update as failed instead of issuing a new one', () => {
    const failed = { ...update('u1', 'Failed'), errors: [{ errorCode: 'IpNotAvailable' as const, errorMessage: 'no IPs' }] };
    const decision = decideControlPlaneAction({ ...base, recorded: failed, updates: [failed] });
    expect(decision).toMatchObject({ action: 'failed' });
  });

  it('waits for a non-version update (EKS refuses a version update meanwhile)', () => {
    const decision = decideControlPlaneAction({ ...base, updates: [update('log', 'InProgress', 'LoggingUpdate')] });
    expect(decision).toMatchObject({ action: 'wait', updateId: 'log' });
  });

  it('is blocked by a rollback in progress, or by a cluster moved outside the job, with a remedy', () => {
    const rollback = decideControlPlaneAction({ ...base, updates: [update('rb', 'InProgress', 'VersionRollback', '1.29')] });
    expect(rollback).toMatchObject({ action: 'blocked' });
    expect(rollback.action === 'blocked' && rollback.reason).toMatch(/version rollback of demo to 1.29/);
    const moved = decideControlPlaneAction({ ...base, clusterVersion: '1.29' });
    expect(moved).toMatchObject({ action: 'blocked' });
    expect(moved.action === 'blocked' && moved.remedy).toMatch(/start a new upgrade from 1.29/);
  });
});
