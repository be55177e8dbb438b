import { DescribeLaunchTemplateVersionsCommand, CreateLaunchTemplateVersionCommand, DescribeSubnetsCommand, EC2Client } from '@aws-sdk/client-ec2';
import {
  CreateNodegroupCommand,
  DeleteNodegroupCommand,
  DescribeAddonVersionsCommand,
  DescribeClusterCommand,
  paginateDescribeClusterVersions,
  type ClusterVersionInformation,
  DescribeFargateProfileCommand,
  DescribeInsightCommand,
  DescribeNodegroupCommand,
  DescribeUpdateCommand,
  EKSClient,
  InvalidParameterException,
  ListClustersCommand,
  ListFargateProfilesCommand,
  ListInsightsCommand,
  ListNodegroupsCommand,
  ListUpdatesCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateAddonCommand,
  UpdateClusterVersionCommand,
  UpdateNodegroupVersionCommand,
} from '@aws-sdk/client-eks';
import { GetParameterCommand, GetParametersByPathCommand, ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '@eks-upgrade-bot/sim';
import { simClientConfig, simControl, useSim } from '@eks-upgrade-bot/sim/kit';
import { until } from '../../support/until.js';

/**
 * The simulator through the real AWS SDK v3 clients over HTTP: serialization, error parsing and retries are the
 * SDK's own, so what passes here is what the bot's adapters will see.
 */
const sim = useSim();

describe('EKS through @aws-sdk/client-eks', () => {
  it('describes the demo cluster with an endpoint that points at its Kubernetes API', async () => {
    const s = await sim('demo');
    const eks = new EKSClient(simClientConfig(s));
    expect((await eks.send(new ListClustersCommand({}))).clusters).toEqual(['demo']);
    const { cluster } = await eks.send(new DescribeClusterCommand({ name: 'demo' }));
    expect(cluster).toMatchObject({ name: 'demo', version: '1.30', status: 'ACTIVE', endpoint: `${s.url}/k8s/demo`, upgradePolicy: { supportType: 'EXTENDED' } });
    expect(cluster?.createdAt).toBeInstanceOf(Date);
    expect(Buffer.from(cluster!.certificateAuthority!.data!, 'base64').toString()).toContain('BEGIN CERTIFICATE');
    const version = await fetch(`${cluster!.endpoint}/version`).then((r) => r.json());
    expect(version.gitVersion).toBe('v1.30.14-eks-f69f56f');

    // Every page, in no promised order: EKS pages and shuffles, so the test sorts.
    const clusterVersions: ClusterVersionInformation[] = [];
    for await (const page of paginateDescribeClusterVersions({ client: eks }, {})) clusterVersions.push(...(page.clusterVersions ?? []));
    expect(clusterVersions.map((v) => v.clusterVersion).sort()).toEqual(['1.30', '1.31', '1.32', '1.33']);
    expect(clusterVersions?.find((v) => v.clusterVersion === '1.30')).toMatchObject({ versionStatus: 'STANDARD_SUPPORT', endOfStandardSupportDate: expect.any(Date) });
  });

  it('runs a control-plane update: one at a time, one minor at a time, Successful at the new version', async () => {
    const s = await sim('demo', { clock: createManualClock() });
    const eks = new EKSClient(simClientConfig(s));
    await expect(eks.send(new UpdateClusterVersionCommand({ name: 'demo', version: '1.32' }))).rejects.toBeInstanceOf(InvalidParameterException);
    const { update } = await eks.send(new UpdateClusterVersionCommand({ name: 'demo', version: '1.31' }));
    expect(update).toMatchObject({ status: 'InProgress', type: 'VersionUpdate' });
    const second = await eks.send(new UpdateClusterVersionCommand({ name: 'demo', version: '1.31' })).catch((e) => e);
    expect(second).toBeInstanceOf(ResourceInUseException);
    expect(second.$metadata.httpStatusCode).toBe(409);
    expect((await eks.send(new DescribeClusterCommand({ name: 'demo' }))).cluster?.status).toBe('UPDATING');

    await simControl(s, 'POST', 'advance', { ms: 10 * 60_000 });
    const { update: done } = await eks.send(new DescribeUpdateCommand({ name: 'demo', updateId: update!.id }));
    expect(done?.status).toBe('Successful');
    expect(done?.params).toContainEqual({ type: 'Version', value: '1.31' });
    expect((await eks.send(new DescribeClusterCommand({ name: 'demo' }))).cluster).toMatchObject({ version: '1.31', status: 'ACTIVE' });
    expect((await eks.send(new ListUpdatesCommand({ name: 'demo' }))).updateIds).toEqual([update!.id]);

    const { calls, rejected } = await simControl(s, 'GET', 'calls?operation=UpdateClusterVersion');
    expect(calls).toEqual([expect.objectContaining({ service: 'eks', operation: 'UpdateClusterVersion', cluster: 'demo', target: '1.31' })]);
    expect(rejected.map((c: { error: string }) => c.error)).toEqual(['InvalidParameterException', 'ResourceInUseException']);
  });

  it('moves simulated time through POST /_sim/advance when started on a manual clock', async () => {
    const s = await sim('demo', { clock: createManualClock() });
    const eks = new EKSClient(simClientConfig(s));
    const { update } = await eks.send(new UpdateClusterVersionCommand({ name: 'demo', version: '1.31' }));
    await simControl(s, 'POST', 'advance', { ms: 9 * 60_000 });
    expect((await eks.send(new DescribeUpdateCommand({ name: 'demo', updateId: update!.id }))).update?.status).toBe('InProgress');
    await simControl(s, 'POST', 'advance', { ms: 60_000 });
    expect((await eks.send(new DescribeUpdateCommand({ name: 'demo', updateId: update!.id }))).update?.status).toBe('Successful');
    const state = await simControl(s, 'GET', 'state');
    expect(state.clusters[0]).toMatchObject({ name: 'demo', version: '1.31', gitVersion: 'v1.31.14-eks-ecaa3a6' });
  });

  it('answers ResourceNotFoundException for unknown clusters and node groups', async () => {
    const s = await sim('demo');
    const eks = new EKSClient(simClientConfig(s));
    const error = await eks.send(new DescribeClusterCommand({ name: 'nope' })).catch((e) => e);
    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect(error.message).toBe('No cluster found for name: nope.');
    await expect(eks.send(new DescribeNodegroupCommand({ clusterName: 'demo', nodegroupName: 'nope' }))).rejects.toBeInstanceOf(ResourceNotFoundException);
  });

  it('reads the workshop: node groups, add-on versions, insights and Fargate profiles', async () => {
    const s = await sim('workshop');
    const eks = new EKSClient(simClientConfig(s));
    const clusterName = 'eksworkshop-eksctl';
    const { nodegroups } = await eks.send(new ListNodegroupsCommand({ clusterName, maxResults: 100 }));
    expect(nodegroups).toHaveLength(3);
    const { nodegroup } = await eks.send(new DescribeNodegroupCommand({ clusterName, nodegroupName: 'blue-mng-20250325023020754500000029' }));
    expect(nodegroup).toMatchObject({
      version: '1.25',
      releaseVersion: '1.25.16-20250715',
      amiType: 'AL2_x86_64',
      labels: { type: 'OrdersMNG' },
      taints: [{ key: 'dedicated', value: 'OrdersApp', effect: 'NO_SCHEDULE' }],
      updateConfig: { maxUnavailablePercentage: 35 },
      scalingConfig: { minSize: 1, maxSize: 2, desiredSize: 1 },
    });
    expect(nodegroup?.subnets).toHaveLength(1);
    const custom = (await eks.send(new DescribeNodegroupCommand({ clusterName, nodegroupName: 'custom-20250401115802906700000007' }))).nodegroup;
    expect(custom).toMatchObject({ amiType: 'CUSTOM', releaseVersion: 'ami-0078a0f78fafda978', launchTemplate: { version: '1' } });

    const { addons } = await eks.send(new DescribeAddonVersionsCommand({ addonName: 'coredns', kubernetesVersion: '1.26' }));
    const versions = addons![0].addonVersions!;
    expect(versions[0]).toMatchObject({ addonVersion: 'v1.9.3-eksbuild.22', compatibilities: [{ clusterVersion: '1.26', defaultVersion: true }] });

    const { insights } = await eks.send(new ListInsightsCommand({ clusterName, maxResults: 100, filter: { kubernetesVersions: ['1.26'], statuses: ['ERROR'] } }));
    // coredns v1.8.7 does not run on 1.26 either: the add-on insight the workshop meets after its upgrade.
    expect(insights?.map((i) => i.name).sort()).toEqual(['Deprecated APIs removed in Kubernetes v1.26', 'EKS add-on version compatibility']);
    const deprecated = insights!.find((i) => i.name?.startsWith('Deprecated'))!;
    const { insight } = await eks.send(new DescribeInsightCommand({ clusterName, id: deprecated.id }));
    expect(insight?.categorySpecificSummary?.deprecationDetails?.[0]).toMatchObject({ usage: '/apis/autoscaling/v2beta2/horizontalpodautoscalers', stopServingVersion: '1.26' });
    expect(insight?.categorySpecificSummary?.deprecationDetails?.[0].clientStats?.[0].lastRequestTime).toBeInstanceOf(Date);

    expect((await eks.send(new ListFargateProfilesCommand({ clusterName }))).fargateProfileNames).toEqual(['fp-assets']);
    const profile = (await eks.send(new DescribeFargateProfileCommand({ clusterName, fargateProfileName: 'fp-assets' }))).fargateProfile;
    expect(profile?.selectors).toEqual([{ namespace: 'assets' }]);
  });

  it('follows node group and add-on updates under their own scope', async () => {
    const s = await sim('demo', { speed: 1200 });
    const eks = new EKSClient(simClientConfig(s));
    const { update } = await eks.send(new UpdateNodegroupVersionCommand({ clusterName: 'demo', nodegroupName: 'demo-ng' }));
    expect((await eks.send(new ListUpdatesCommand({ name: 'demo', nodegroupName: 'demo-ng' }))).updateIds).toEqual([update!.id]);
    expect((await eks.send(new ListUpdatesCommand({ name: 'demo' }))).updateIds).toEqual([]);
    await expect(eks.send(new DescribeUpdateCommand({ name: 'demo', updateId: update!.id }))).rejects.toBeInstanceOf(ResourceNotFoundException);
    const addon = await eks.send(new UpdateAddonCommand({ clusterName: 'demo', addonName: 'vpc-cni', addonVersion: 'v1.20.4-eksbuild.2' })).catch((e) => e);
    expect(addon).toBeInstanceOf(InvalidParameterException);
    const ok = await eks.send(new UpdateAddonCommand({ clusterName: 'demo', addonName: 'vpc-cni', addonVersion: 'v1.19.6-eksbuild.7', resolveConflicts: 'PRESERVE' }));
    await until(async () => {
      const { update: u } = await eks.send(new DescribeUpdateCommand({ name: 'demo', updateId: ok.update!.id, addonName: 'vpc-cni' }));
      return u?.status === 'Successful';
    }, 'the add-on update');
  });

  it('creates a node group (CREATING → ACTIVE) and deletes it (DELETING → gone)', async () => {
    const s = await sim('demo', { speed: 1200 });
    const eks = new EKSClient(simClientConfig(s));
    const { cluster } = await eks.send(new DescribeClusterCommand({ name: 'demo' }));
    const { nodegroup } = await eks.send(
      new CreateNodegroupCommand({
        clusterName: 'demo',
        nodegroupName: 'green',
        nodeRole: 'arn:aws:iam::111122223333:role/green-node',
        subnets: cluster!.resourcesVpcConfig!.subnetIds!.slice(0, 1),
        instanceTypes: ['m5.large'],
        scalingConfig: { minSize: 1, maxSize: 2, desiredSize: 1 },
        labels: { color: 'green' },
      }),
    );
    expect(nodegroup).toMatchObject({ status: 'CREATING', version: '1.30', amiType: 'AL2023_x86_64_STANDARD' });
    const again = await eks.send(new CreateNodegroupCommand({ clusterName: 'demo', nodegroupName: 'green', nodeRole: 'r', subnets: nodegroup!.subnets })).catch((e) => e);
    expect(again).toBeInstanceOf(ResourceInUseException);
    await until(async () => (await eks.send(new DescribeNodegroupCommand({ clusterName: 'demo', nodegroupName: 'green' }))).nodegroup?.status === 'ACTIVE', 'green ACTIVE');
    expect(s.world.kube('demo')!.list('nodes').filter((n) => n.metadata.labels?.color === 'green')).toHaveLength(1);

    expect((await eks.send(new DeleteNodegroupCommand({ clusterName: 'demo', nodegroupName: 'green' }))).nodegroup?.status).toBe('DELETING');
    await until(async () => (await eks.send(new ListNodegroupsCommand({ clusterName: 'demo' }))).nodegroups?.length === 1, 'green deleted');
    await expect(eks.send(new DescribeNodegroupCommand({ clusterName: 'demo', nodegroupName: 'green' }))).rejects.toBeInstanceOf(ResourceNotFoundException);
  });

  it('answers injected throttling with 429 ThrottlingException, which the SDK retries', async () => {
    const s = await sim('demo');
    await simControl(s, 'POST', 'faults', { throttleRate: 1 });
    expect((await simControl(s, 'GET', 'faults')).throttleRate).toBe(1);
    const eks = new EKSClient({ ...simClientConfig(s), maxAttempts: 2 });
    const error = await eks.send(new DescribeClusterCommand({ name: 'demo' })).catch((e) => e);
    expect(error).toMatchObject({ name: 'ThrottlingException', $metadata: { httpStatusCode: 429, attempts: 2 } });
    await simControl(s, 'DELETE', 'faults');
    expect((await eks.send(new DescribeClusterCommand({ name: 'demo' }))).cluster?.name).toBe('demo');
  });

  it("names injected faults as each service does: SSM 400 ThrottlingException, EC2 503 RequestLimitExceeded, 5xx InternalServerError / InternalError", async () => {
    const s = await sim('demo');
    const ssm = new SSMClient({ ...simClientConfig(s), maxAttempts: 2 });
    const ec2 = new EC2Client({ ...simClientConfig(s), maxAttempts: 2 });
    const name = '/aws/service/eks/optimized-ami/1.26/amazon-linux-2/recommended/image_id';
    await simControl(s, 'POST', 'faults', { throttleRate: 1 });
    expect(await ssm.send(new GetParameterCommand({ Name: name })).catch((e) => e)).toMatchObject({ name: 'ThrottlingException', $metadata: { httpStatusCode: 400, attempts: 2 } });
    expect(await ec2.send(new DescribeSubnetsCommand({})).catch((e) => e)).toMatchObject({ name: 'RequestLimitExceeded', $metadata: { httpStatusCode: 503, attempts: 2 } });
    await simControl(s, 'POST', 'faults', { throttleRate: 0, errorRate: 1 });
    const ssmError = await ssm.send(new GetParameterCommand({ Name: name })).catch((e) => e);
    expect(ssmError.name).toMatch(/^(InternalServerError|ServiceUnavailable)$/);
    expect(ssmError.$metadata).toMatchObject({ attempts: 2 });
    const ec2Error = await ec2.send(new DescribeSubnetsCommand({})).catch((e) => e);
    expect(ec2Error.name).toMatch(/^(InternalError|Unavailable)$/);
    expect(ec2Error.$metadata).toMatchObject({ attempts: 2 });
    await simControl(s, 'DELETE', 'faults');
    expect((await ssm.send(new GetParameterCommand({ Name: name }))).Parameter?.Value).toBe('ami-086414611b43bb691');
  });
});

describe('SSM and EC2 through their SDK clients', () => {
  it('serves the EKS-optimized AMI parameters and ParameterNotFound', async () => {
    const s = await sim('demo');
    const ssm = new SSMClient(simClientConfig(s));
    const al2 = await ssm.send(new GetParameterCommand({ Name: '/aws/service/eks/optimized-ami/1.26/amazon-linux-2/recommended/image_id' }));
    expect(al2.Parameter?.Value).toBe('ami-086414611b43bb691');
    const al2023 = await ssm.send(new GetParameterCommand({ Name: '/aws/service/eks/optimized-ami/1.30/amazon-linux-2023/x86_64/standard/recommended/image_id' }));
    expect(al2023.Parameter?.Value).toBe('ami-0f676a166352f02ab');
    const release = await ssm.send(new GetParameterCommand({ Name: '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/release_version' }));
    expect(release.Parameter?.Value).toBe('1.31.14-20250715');
    const bottlerocket = await ssm.send(new GetParameterCommand({ Name: '/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id' }));
    expect(bottlerocket.Parameter?.Value).toMatch(/^ami-0[0-9a-f]{16}$/);
    await expect(ssm.send(new GetParameterCommand({ Name: '/aws/service/eks/optimized-ami/1.33/amazon-linux-2/recommended/image_id' }))).rejects.toBeInstanceOf(ParameterNotFound);
    const byPath = await ssm.send(new GetParametersByPathCommand({ Path: '/aws/service/eks/optimized-ami/1.30/amazon-linux-2023', Recursive: true }));
    expect(byPath.Parameters?.length).toBeGreaterThan(0);
  });

  it('describes the cluster subnets with free IPs, and rolls a launch template version', async () => {
    const s = await sim('workshop');
    const ec2 = new EC2Client(simClientConfig(s));
    const { Subnets } = await ec2.send(new DescribeSubnetsCommand({}));
    expect(Subnets?.map((x) => x.AvailabilityZone).sort()).toEqual(['us-west-2a', 'us-west-2b', 'us-west-2c']);
    expect(Subnets?.[0]).toMatchObject({ SubnetId: expect.stringMatching(/^subnet-0/), VpcId: expect.stringMatching(/^vpc-0/), AvailableIpAddressCount: expect.any(Number) });
    const a = Subnets!.find((x) => x.AvailabilityZone === 'us-west-2a')!;
    expect(a.CidrBlock).toBe('10.0.0.0/20');
    expect(a.AvailableIpAddressCount).toBeLessThan(4091); // the nodes in 2a hold some
    const one = await ec2.send(new DescribeSubnetsCommand({ SubnetIds: [a.SubnetId!] }));
    expect(one.Subnets).toHaveLength(1);
    await expect(ec2.send(new DescribeSubnetsCommand({ SubnetIds: ['subnet-0000000000000dead'] }))).rejects.toMatchObject({ name: 'InvalidSubnetID.NotFound' });

    const lt = s.world.cluster('eksworkshop-eksctl')!.nodegroups.get('custom-20250401115802906700000007')!.launchTemplate!;
    const created = await ec2.send(new CreateLaunchTemplateVersionCommand({ LaunchTemplateId: lt.id, SourceVersion: '1', LaunchTemplateData: { ImageId: 'ami-086414611b43bb691' } }));
    expect(created.LaunchTemplateVersion?.VersionNumber).toBe(2);
    const versions = await ec2.send(new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateId: lt.id, Versions: ['$Latest'] }));
    expect(versions.LaunchTemplateVersions?.[0].LaunchTemplateData?.ImageId).toBe('ami-086414611b43bb691');
  });
});
