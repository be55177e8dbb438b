import {
  CreateLaunchTemplateVersionCommand,
  DescribeLaunchTemplateVersionsCommand,
  DescribeSubnetsCommand,
  EC2Client,
  ModifyLaunchTemplateCommand,
} from '@aws-sdk/client-ec2';
import type { Ec2Port, Ec2PortFactory, LaunchTemplateVersionInfo, SubnetInfo } from '../ports/aws/ec2-port.js';
import { clientCache, instrumented, sdkClientConfig, type AwsAdapterOptions } from './aws-client-config.js';

/**
 * Ec2Port over @aws-sdk/client-ec2: DescribeSubnets for the cluster's subnets, to count free IPs before a
 * control-plane upgrade (it needs up to 5 per subnet), and launch template versions for AMI rollouts of
 * self-managed and custom-AMI node groups. Errors (InvalidSubnetID.NotFound, UnauthorizedOperation,
 * InvalidLaunchTemplateId.NotFound…) pass through unchanged.
 */
export function createEc2PortFactory(opts: AwsAdapterOptions = {}): Ec2PortFactory {
  return clientCache((target) => ec2Port(instrumented(new EC2Client(sdkClientConfig('ec2', target, opts)), 'ec2', opts.metrics)));
}

function ec2Port(client: EC2Client): Ec2Port {
  return {
    async describeSubnets(subnetIds) {
      // EC2 reads an empty id list as "every subnet in the account": ask only for what we were given.
      if (subnetIds.length === 0) return [];
      const subnets: SubnetInfo[] = [];
      let nextToken: string | undefined;
      do {
        const page = await client.send(new DescribeSubnetsCommand({ SubnetIds: subnetIds, NextToken: nextToken }));
        for (const subnet of page.Subnets ?? []) {
          subnets.push({
            subnetId: subnet.SubnetId ?? '',
            availabilityZone: subnet.AvailabilityZone ?? '',
            availableIpAddressCount: subnet.AvailableIpAddressCount ?? 0,
            ...(subnet.CidrBlock ? { cidrBlock: subnet.CidrBlock } : {}),
          });
        }
        nextToken = page.NextToken;
      } while (nextToken);
      return subnets;
    },

    async latestLaunchTemplateVersion(template) {
      const page = await client.send(
        new DescribeLaunchTemplateVersionsCommand({ ...(template.id ? { LaunchTemplateId: template.id } : { LaunchTemplateName: template.name }), Versions: ['$Latest'] }),
      );
      const latest = page.LaunchTemplateVersions?.[0];
      if (!latest?.VersionNumber) throw new Error(`DescribeLaunchTemplateVersions for ${template.id ?? template.name} returned no $Latest version`);
      return { id: latest.LaunchTemplateId ?? template.id ?? '', ...(latest.LaunchTemplateName ? { name: latest.LaunchTemplateName } : {}), latestVersion: latest.VersionNumber };
    },
    async describeLaunchTemplateVersions(launchTemplateId) {
      const versions: LaunchTemplateVersionInfo[] = [];
      let nextToken: string | undefined;
      do {
        const page = await client.send(new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateId: launchTemplateId, NextToken: nextToken }));
        for (const v of page.LaunchTemplateVersions ?? []) {
          versions.push({
            version: v.VersionNumber ?? 0,
            imageId: v.LaunchTemplateData?.ImageId,
            isDefault: Boolean(v.DefaultVersion),
            ...(v.CreateTime ? { createdAt: v.CreateTime.getTime() } : {}),
            ...(v.VersionDescription ? { description: v.VersionDescription } : {}),
          });
        }
        nextToken = page.NextToken;
      } while (nextToken);
      return versions.sort((a, b) => a.version - b.version);
    },
    async createLaunchTemplateVersion(launchTemplateId, input) {
      const { LaunchTemplateVersion } = await client.send(
        new CreateLaunchTemplateVersionCommand({
          LaunchTemplateId: launchTemplateId,
          SourceVersion: input.sourceVersion,
          VersionDescription: input.description,
          LaunchTemplateData: { ImageId: input.imageId },
        }),
      );
      return LaunchTemplateVersion?.VersionNumber ?? 0;
    },
    async setDefaultLaunchTemplateVersion(launchTemplateId, version) {
      await client.send(new ModifyLaunchTemplateCommand({ LaunchTemplateId: launchTemplateId, DefaultVersion: String(version) }));
    },
  };
}
