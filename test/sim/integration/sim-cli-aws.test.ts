import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createManualClock, type SimServer } from '@eks-upgrade-bot/sim';
import { simControl, simEnv, useSim } from '@eks-upgrade-bot/sim/kit';
import { aws } from '../../support/aws-cli.js';

/**
 * The simulator through the real `aws` CLI (botocore parses our JSON, XML and error headers) and `kubectl` (through
 * the /k8s/<cluster> prefix and the kubeconfig the simulator writes), as a person running the lab would use it.
 */
const run = promisify(execFile);
const sim = useSim();

describe('the aws CLI against the simulator', () => {
  it('describes the cluster, refuses bad updates with the AWS error names, and follows an update to Successful', async () => {
    // A manual clock: the update stays in flight until the test moves time on, however slow the CLI is.
    const s = await sim('demo', { clock: createManualClock() });
    const described = await aws(s, 'eks', 'describe-cluster', '--name', 'demo');
    expect(described.json.cluster).toMatchObject({ name: 'demo', version: '1.30', status: 'ACTIVE', endpoint: `${s.url}/k8s/demo` });

    const jump = await aws(s, 'eks', 'update-cluster-version', '--name', 'demo', '--kubernetes-version', '1.32');
    expect(jump.ok).toBe(false);
    expect(jump.stderr).toContain('An error occurred (InvalidParameterException) when calling the UpdateClusterVersion operation: Unsupported Kubernetes minor version update from 1.30 to 1.32');

    const started = await aws(s, 'eks', 'update-cluster-version', '--name', 'demo', '--kubernetes-version', '1.31');
    expect(started.json.update).toMatchObject({ status: 'InProgress', type: 'VersionUpdate' });
    const again = await aws(s, 'eks', 'update-cluster-version', '--name', 'demo', '--kubernetes-version', '1.31');
    expect(again.stderr).toContain('(ResourceInUseException)');

    const describeUpdate = async () => (await aws(s, 'eks', 'describe-update', '--name', 'demo', '--update-id', started.json.update.id)).json?.update.status;
    await simControl(s, 'POST', 'advance', { ms: 10 * 60_000 });
    expect(await describeUpdate()).toBe('Successful');
    const missing = await aws(s, 'eks', 'describe-cluster', '--name', 'nope');
    expect(missing.stderr).toContain('(ResourceNotFoundException)');
  });

  it('reads add-on versions and insights of the workshop, an SSM parameter and the subnets', async () => {
    const s = await sim('workshop', { clock: createManualClock() });
    const [coredns, insights, ami, subnets] = await Promise.all([
      aws(s, 'eks', 'describe-addon-versions', '--addon-name', 'coredns', '--kubernetes-version', '1.26', '--query', 'addons[].addonVersions[:3].addonVersion'),
      aws(s, 'eks', 'list-insights', '--cluster-name', 'eksworkshop-eksctl'),
      aws(s, 'ssm', 'get-parameter', '--name', '/aws/service/eks/optimized-ami/1.26/amazon-linux-2/recommended/image_id', '--query', 'Parameter.Value'),
      aws(s, 'ec2', 'describe-subnets', '--query', 'Subnets[].[AvailabilityZone,AvailableIpAddressCount]'),
    ]);
    expect(coredns.json).toEqual([['v1.9.3-eksbuild.22', 'v1.9.3-eksbuild.21', 'v1.9.3-eksbuild.19']]);
    expect(insights.json.insights.map((i: { name: string }) => i.name)).toContain('Deprecated APIs removed in Kubernetes v1.26');
    expect(ami.json).toBe('ami-086414611b43bb691');
    expect(subnets.json).toHaveLength(3);
    expect(subnets.json.every(([, free]: [string, number]) => free > 4000)).toBe(true);
  });
});

describe('kubectl against the simulator', () => {
  it('lists the demo nodes through the kubeconfig the simulator writes', async () => {
    const s = await sim('demo');
    const dir = mkdtempSync(join(tmpdir(), 'sim-kubectl-'));
    const kubeconfig = join(dir, 'config');
    writeFileSync(kubeconfig, s.kubeconfig());
    const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), '--context', 'demo', 'get', 'nodes', '-o', 'json'], { timeout: 20_000 });
    const nodes = JSON.parse(stdout).items;
    expect(nodes).toHaveLength(2);
    expect(nodes.every((n: any) => n.status.nodeInfo.kubeletVersion === 'v1.30.14-eks-f69f56f' && n.metadata.labels['eks.amazonaws.com/nodegroup'] === 'demo-ng')).toBe(true);
  });
});
