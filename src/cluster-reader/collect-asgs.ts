import { archOfNode, familyOfNode, variantOfNode } from '../planning/deciders/ami-parameters.js';
import { selfManagedAmiSource } from '../planning/deciders/ami-source.js';
import type { AsgSnapshot, KubeSnapshot } from '../planning/cluster-snapshot.js';
import { computeOfNode, instanceIdOfNode } from '../planning/compute-groups.js';
import type { AutoScalingPort } from '../ports/aws/autoscaling-port.js';
import type { Ec2Port } from '../ports/aws/ec2-port.js';
import type { SsmPort } from '../ports/aws/ssm-port.js';
import type { Limiter } from './bounded.js';

/**
 * The cluster's self-managed node groups for the preflight: Auto Scaling groups tagged
 * kubernetes.io/cluster/<name> or holding one of its self-managed nodes (matched by the instance id in the node's
 * providerID), their launch template versions, protected instances, and the EKS-optimized AMI of their own
 * family/arch/variant for each target minor. Per-group failures are kept on the group, not thrown.
 */

export async function readAutoScalingGroups(
  ports: { autoScaling: AutoScalingPort; ec2: Ec2Port; ssm: SsmPort },
  input: { cluster: string; kube: KubeSnapshot; targets: string[]; run: Limiter; describe: (op: string, e: unknown) => string },
): Promise<AsgSnapshot[]> {
  const nodes = input.kube.nodes.ok ? input.kube.nodes.value : [];
  const selfManaged = new Map(nodes.filter((n) => computeOfNode(n).type === 'self-managed').map((n) => [instanceIdOfNode(n), n]));
  const groups = (await input.run(() => ports.autoScaling.describeGroups())).filter(
    (g) => !g.tags['eks:nodegroup-name'] && (['owned', 'shared'].includes(g.tags[`kubernetes.io/cluster/${input.cluster}`] ?? '') || g.instances.some((i) => selfManaged.has(i.instanceId))),
  );
  return Promise.all(
    groups.map(async (g): Promise<AsgSnapshot> => {
      let launchTemplate: AsgSnapshot['launchTemplate'];
      if (g.launchTemplate) {
        try {
          const versions = await input.run(() => ports.ec2.describeLaunchTemplateVersions(g.launchTemplate!.id));
          launchTemplate = { ...g.launchTemplate, groupVersion: g.launchTemplate.version, defaultVersion: versions.find((v) => v.isDefault)?.version, latestVersion: Math.max(0, ...versions.map((v) => v.version)) };
        } catch (error) {
          launchTemplate = { ...g.launchTemplate, groupVersion: g.launchTemplate.version, error: input.describe(`DescribeLaunchTemplateVersions ${g.launchTemplate.id}`, error) };
        }
      }
      const node = g.instances.map((i) => selfManaged.get(i.instanceId) ?? nodes.find((n) => instanceIdOfNode(n) === i.instanceId)).find(Boolean);
      const image = node ? { family: familyOfNode(node), arch: archOfNode(node), variant: variantOfNode(node), osImage: String(node.status?.nodeInfo?.osImage ?? '') } : undefined;
      const amis = await Promise.all(
        input.targets.map(async (minor) => {
          if (!image) return { minor, why: 'no node of the group has registered' };
          const source = selfManagedAmiSource(minor, undefined, image);
          if (source.kind !== 'parameter') return { minor, why: source.kind === 'none' ? source.reason : 'fixed image' };
          try {
            const imageId = await input.run(() => ports.ssm.getParameter(source.parameter));
            return { minor, parameter: source.parameter, ...(imageId ? { imageId } : {}) };
          } catch (error) {
            return { minor, parameter: source.parameter, error: input.describe(`GetParameter ${source.parameter}`, error) };
          }
        }),
      );
      return {
        name: g.name,
        minSize: g.minSize,
        maxSize: g.maxSize,
        desiredCapacity: g.desiredCapacity,
        instanceIds: g.instances.map((i) => i.instanceId),
        protectedInstances: g.instances.filter((i) => i.protectedFromScaleIn).map((i) => i.instanceId),
        ...(launchTemplate ? { launchTemplate } : {}),
        amis,
      };
    }),
  );
}
