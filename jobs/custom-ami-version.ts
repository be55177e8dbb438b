import type { Nodegroup } from '@aws-sdk/client-eks';
import type { NodegroupPolicy } from '../src/config/clusters-config.js';
import { amiSourceHint, configuredAmiSource } from '../src/planning/ami-source.js';
import { StepFailure, type StepContext } from '../src/upgrade/step-context.js';

/**
 * A managed node group pinned to a custom AMI moves when its launch template gets a version with the target's AMI:
 * clusters.yaml names where that AMI comes from (`amiParameter: "/my/amis/{minor}/image_id"` or
 * `ami: {"1.26": ami-…}`). This finds the version that already carries the AMI (a re-run after a crash) or
 * creates it from the group's current version with only the image id changed, and returns its number for
 * UpdateNodegroupVersion. Undefined: clusters.yaml gives no source (the step's gate then says what to add).
 */
export async function customAmiLaunchTemplateVersion(ctx: StepContext, ng: Nodegroup, policy: NodegroupPolicy): Promise<{ version: string; imageId: string; created: boolean } | undefined> {
  const { step } = ctx;
  const source = configuredAmiSource(policy, step.to);
  const lt = ng.launchTemplate;
  if (!source || !lt?.id) return undefined;
  const imageId = source.kind === 'image' ? source.imageId : await ctx.ssm.getParameter(source.parameter);
  if (!imageId) {
    throw new StepFailure(`node group ${ng.nodegroupName}: no ${step.to} AMI: SSM parameter ${source.kind === 'parameter' ? source.parameter : '?'} does not exist`, {
      remedy: `publish the ${step.to} AMI id under that parameter, or ${amiSourceHint('nodegroups', ng.nodegroupName ?? '<ng>', step.to)}`,
      code: 'AMI_NOT_FOUND',
    });
  }
  const versions = await ctx.ec2.describeLaunchTemplateVersions(lt.id);
  const existing = versions.filter((v) => v.imageId === imageId).map((v) => v.version);
  if (existing.length) return { version: String(Math.max(...existing)), imageId, created: false };
  if (ctx.data.dryRun) return { version: '(new)', imageId, created: false };
  const version = await ctx.ec2.createLaunchTemplateVersion(lt.id, { sourceVersion: lt.version ?? '$Default', imageId, description: `eks-upgrade-bot ${ctx.data.jobId}: ${step.to}` });
  await ctx.emit(`ng:${ng.nodegroupName}:lt-version:${version}`, {
    kind: 'progress', at: ctx.clock.now(), step: step.id,
    text: `${ng.nodegroupName}: launch template ${lt.name ?? lt.id} version ${version} created from version ${lt.version} with ${imageId} (${source.label}).`,
  });
  return { version: String(version), imageId, created: true };
}
