import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEc2PortFactory } from '../../src/aws/ec2-sdk-adapter.js';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createSsmPortFactory } from '../../src/aws/ssm-sdk-adapter.js';
import { startSimulator, type SimServer } from '@eks-upgrade-bot/sim';

/**
 * The AWS adapters through the real SDK clients (restJson1 EKS, awsJson1_1 SSM, query-protocol EC2) against the
 * simulator over HTTP, scenario `demo`: cluster demo at 1.30, one managed node group of two nodes.
 */
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const demo = { region: 'us-west-2' };
let sim: SimServer;

beforeAll(async () => {
  sim = await startSimulator({ scenario: 'demo', port: 0, host: '127.0.0.1', speed: 60 });
});
afterAll(async () => {
  await sim?.close();
});

describe('EKS adapter against the simulator', () => {
  it('describes the cluster with the endpoint of its Kubernetes API', async () => {
    const eks = createEksPortFactory({ endpoint: sim.url, credentials })(demo);
    expect(await eks.listClusters()).toContain('demo');
    const cluster = await eks.describeCluster('demo');
    expect(cluster).toMatchObject({ name: 'demo', version: '1.30', status: 'ACTIVE', endpoint: `${sim.url}/k8s/demo` });
    expect(cluster.platformVersion).toMatch(/^eks\.\d+$/);
    expect(cluster.createdAt).toBeInstanceOf(Date);
  });

  it('lists the versions EKS offers', async () => {
    const eks = createEksPortFactory({ endpoint: sim.url, credentials })(demo);
    const versions = (await eks.describeClusterVersions()).map((v) => v.clusterVersion);
    expect(versions).toEqual(expect.arrayContaining(['1.30', '1.31', '1.32', '1.33']));
  });

  it('finds the managed node group and its version', async () => {
    const eks = createEksPortFactory({ endpoint: sim.url, credentials })(demo);
    const names = await eks.listNodegroups('demo');
    expect(names).toHaveLength(1);
    const nodegroup = await eks.describeNodegroup('demo', names[0]);
    expect(nodegroup).toMatchObject({ nodegroupName: names[0], clusterName: 'demo', version: '1.30', status: 'ACTIVE' });
    expect(nodegroup.scalingConfig?.desiredSize).toBe(2);
  });

  it('starts one control-plane update and refuses a second one with ResourceInUseException', async () => {
    const eks = createEksPortFactory({ endpoint: sim.url, credentials })(demo);
    const update = await eks.updateClusterVersion('demo', '1.31');
    expect(update).toMatchObject({ type: 'VersionUpdate', status: 'InProgress' });
    expect(update.params).toEqual(expect.arrayContaining([{ type: 'Version', value: '1.31' }]));

    const second = await eks.updateClusterVersion('demo', '1.31').catch((error) => error);
    expect(second.name).toBe('ResourceInUseException');
    expect(second.$fault).toBe('client');

    expect(await eks.listUpdates('demo')).toContain(update.id);
    expect(await eks.describeUpdate('demo', update.id!)).toMatchObject({ id: update.id, status: 'InProgress' });
    expect((await eks.describeCluster('demo')).status).toBe('UPDATING');
    const issued = sim.world.calls.filter((call) => call.operation === 'UpdateClusterVersion' && call.cluster === 'demo');
    expect(issued.length).toBeGreaterThanOrEqual(1);
  });
});

describe('SSM and EC2 adapters against the simulator', () => {
  it('reads the EKS-optimized AMI parameter, and undefined for one that does not exist', async () => {
    const ssm = createSsmPortFactory({ endpoint: sim.url, credentials })(demo);
    expect(await ssm.getParameter('/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id')).toMatch(/^ami-[0-9a-f]+$/);
    expect(await ssm.getParameter('/aws/service/eks/optimized-ami/1.99/amazon-linux-2023/x86_64/standard/recommended/image_id')).toBeUndefined();
  });

  it('describes the cluster subnets by id with their free IPs', async () => {
    const eks = createEksPortFactory({ endpoint: sim.url, credentials })(demo);
    const subnetIds = (await eks.describeCluster('demo')).resourcesVpcConfig?.subnetIds ?? [];
    expect(subnetIds.length).toBeGreaterThan(0);
    const subnets = await createEc2PortFactory({ endpoint: sim.url, credentials })(demo).describeSubnets(subnetIds);
    expect(subnets.map((s) => s.subnetId).sort()).toEqual([...subnetIds].sort());
    for (const subnet of subnets) {
      expect(subnet.availabilityZone).toMatch(/^us-west-2[a-z]$/);
      expect(subnet.availableIpAddressCount).toBeGreaterThan(0);
    }
  });
});
