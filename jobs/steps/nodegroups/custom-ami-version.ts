import type { Nodegroup } from '@aws-sdk/client-eks';
import type { NodegroupPolicy } from '../../../src/config/clusters-config.js';
import { amiSourceHint } from '../../../src/planning/deciders/ami-source.js';
import { configuredAmiSource } from '../../../src/planning/deciders/configured-ami-source.js';
import { isCustomAmi } from '../../../src/planning/deciders/decide-nodegroup-action.js';
import { StepFailure, type StepContext } from '../../engine/step-context.js';

/**
 * A managed node group pinned to a custom AMI moves when its launch template gets a version with the target's AMI:
 * clusters.yaml names where that AMI comes from (`amiParameter: "/my/amis/{minor}/image_id"` or
 * `ami: {"1.26": ami-…}`). `findCustomAmiVersion` reads (never changes anything): the target AMI and the newest
 * version that already carries it (a re-run after a crash, or a version someone made) — what the node-group decider
 * (src/planning/deciders/decide-nodegroup-action.ts) needs as `amiVersion`. The step has the executor make the version
 * from the group's current one with only the image id changed (create-launch-template-version), once it acts on a
 * group the plan names.
 * Undefined: clusters.yaml gives no source, or names a launchTemplateVersion itself (the decider then needs nothing).
 */
export interface CustomAmiTarget {
  imageId: string;
  label: string;
  /** The newest version of the group's template with the target AMI, when one exists. */
  version?: string;
}

export async function findCustomAmiVersion(ctx: StepContext, ng: Nodegroup, policy: NodegroupPolicy): Promise<CustomAmiTarget | undefined> {
  const { step } = ctx;
  const lt = ng.launchTemplate;
  const source = policy.launchTemplateVersion ? undefined : configuredAmiSource(policy, step.to);
  if (!source || !lt?.id || !isCustomAmi({ amiType: ng.amiType, releaseVersion: ng.releaseVersion, launchTemplate: lt })) return undefined;
  const imageId = source.kind === 'image' ? source.imageId : await ctx.ssm.getParameter(source.parameter);
  if (!imageId) {
    throw new StepFailure(`node group ${ng.nodegroupName}: no ${step.to} AMI: SSM parameter ${source.kind === 'parameter' ? source.parameter : '?'} does not exist`, {
      remedy: `publish the ${step.to} AMI id under that parameter, or ${amiSourceHint('nodegroups', ng.nodegroupName ?? '<ng>', step.to)}`,
      code: 'AMI_NOT_FOUND',
    });
  }
  const versions = await ctx.ec2.describeLaunchTemplateVersions(lt.id);
  const existing = versions.filter((v) => v.imageId === imageId).map((v) => v.version);
  return { imageId, label: source.label, ...(existing.length ? { version: String(Math.max(...existing)) } : {}) };
}
