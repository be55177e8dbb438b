import { describe, expect, it } from 'vitest';
import { startClusterVersionUpdate } from '../../../src/sim/aws/eks/cluster-update.js';
import { loadScenario } from '../../../src/sim/scenario/load-scenario.js';
import { useWorld } from './use-world.js';
import { awsError } from './aws-error-of.js';

/**
 * The simulated EKS control-plane update on a manual clock: the states a caller sees over the 10 simulated minutes,
 * the errors EKS answers, and an injected failure that leaves the cluster where it was.
 */
const world = useWorld();

describe('UpdateClusterVersion in the simulator', () => {
  it('is InProgress with the cluster UPDATING for 10 simulated minutes, then Successful at the new version', async () => {
    const t = await world('demo');
    const cluster = t.cluster('demo');
    const update = startClusterVersionUpdate(t.world, cluster, '1.31');
    expect(update).toMatchObject({ status: 'InProgress', type: 'VersionUpdate', errors: [] });
    expect(update.params).toContainEqual({ type: 'Version', value: '1.31' });
    expect(cluster.status).toBe('UPDATING');

    await t.clock.advance(9 * 60_000);
    expect(update.status).toBe('InProgress');
    expect(cluster.version).toBe('1.30');

    await t.clock.advance(60_000);
    expect(update.status).toBe('Successful');
    expect(cluster).toMatchObject({ version: '1.31', status: 'ACTIVE', platformVersion: 'eks.24' });
    expect(cluster.store.gitVersion).toBe('v1.31.14-eks-ecaa3a6');
  });

  it('refuses a second update while one is in flight with ResourceInUseException (409)', async () => {
    const t = await world('demo');
    startClusterVersionUpdate(t.world, t.cluster(), '1.31');
    const error = awsError(() => startClusterVersionUpdate(t.world, t.cluster(), '1.31'));
    expect(error).toMatchObject({ status: 409, type: 'ResourceInUseException' });
  });

  it('refuses a two-minor jump, a downgrade, the current version and a version EKS does not offer', async () => {
    const t = await world('demo');
    const cluster = t.cluster();
    expect(awsError(() => startClusterVersionUpdate(t.world, cluster, '1.32'))).toMatchObject({
      status: 400,
      type: 'InvalidParameterException',
      message: 'Unsupported Kubernetes minor version update from 1.30 to 1.32',
    });
    expect(awsError(() => startClusterVersionUpdate(t.world, cluster, '1.30')).type).toBe('InvalidParameterException');
    expect(awsError(() => startClusterVersionUpdate(t.world, cluster, '1.34')).message).toContain('not supported');
    await t.clock.advance(0);
    cluster.version = '1.31';
    // A downgrade is a version rollback, refused for a cluster that was not upgraded in place (sim-aws-rollback.test.ts).
    expect(awsError(() => startClusterVersionUpdate(t.world, cluster, '1.30')).type).toBe('InvalidRequestException');
    expect(cluster.updates).toHaveLength(0);
  });

  it('ends Failed with the injected error code and leaves the cluster at its old version', async () => {
    const t = await world('demo-update-fails');
    const cluster = t.cluster('demo');
    const update = startClusterVersionUpdate(t.world, cluster, '1.31');
    await t.clock.advance(10 * 60_000);
    expect(update.status).toBe('Failed');
    expect(update.errors[0]).toMatchObject({ errorCode: 'Unknown' });
    expect(update.errors[0].errorMessage).toContain('rolled the cluster back');
    expect(cluster).toMatchObject({ version: '1.30', status: 'ACTIVE' });
    expect(cluster.store.gitVersion).toBe('v1.30.14-eks-f69f56f');

    // The fault is used up: the retry goes through.
    const retry = startClusterVersionUpdate(t.world, cluster, '1.31');
    await t.clock.advance(10 * 60_000);
    expect(retry.status).toBe('Successful');
  });

  it('fails with InsufficientFreeAddresses when the cluster subnets have fewer than 5 free IPs', async () => {
    const t = await world({
      name: 'tight',
      eks: { versions: ['1.30', '1.31'] },
      clusters: [{ name: 'tight', region: 'us-west-2', version: '1.30', vpc: { cidr: '10.9.0.0/16', subnets: [{ zone: 'us-west-2a', cidr: '10.9.0.0/24', availableIps: 3 }] } }],
    });
    const update = startClusterVersionUpdate(t.world, t.cluster(), '1.31');
    await t.clock.advance(10 * 60_000);
    expect(update.errors[0]?.errorCode).toBe('InsufficientFreeAddresses');
    expect(t.cluster().version).toBe('1.30');
  });

  // Blocking on ERROR insights, when EKS enforces it, answers InvalidStateException (EKS user guide, update-cluster).
  it('blocks on ERROR upgrade insights when the scenario says so, unless forced', async () => {
    const t = await world({ ...loadScenario('workshop'), eks: { insightsBlockUpgrades: true } });
    const cluster = t.cluster();
    const error = awsError(() => startClusterVersionUpdate(t.world, cluster, '1.26'));
    expect(error.type).toBe('InvalidStateException');
    expect(error.message).toContain('Deprecated APIs removed in Kubernetes v1.26');
    expect(startClusterVersionUpdate(t.world, cluster, '1.26', true).status).toBe('InProgress');
  });
});
