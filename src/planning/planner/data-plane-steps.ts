import { archOfAmiType, archOfNode, describeTargetAmi, familyOfNode, findAmi, variantOfNode } from '../deciders/ami-parameters.js';
import { configuredAmiSource } from '../deciders/configured-ami-source.js';
import { DEFAULT_SELF_MANAGED_POLICY } from '../../config/clusters-config.js';
import { valueOr, type ClusterSnapshot } from '../cluster-snapshot.js';
import { computeOfNode, instanceIdOfNode } from '../compute-groups.js';
import { instanceViewsOf, selfManagedWorldDecision } from '../deciders/decide-self-managed-action.js';
import { planFargateRestarts, workloadKey } from '../deciders/fargate-workloads.js';
import type { KubeObject } from '../../ports/kube-port.js';
import { fargateRestarts } from '../checks/fargate-checks.js';
import type { DataPlaneUnit } from './data-plane-units.js';
import { plural } from '../../ports/finding.js';
import type { PlanPolicy } from '../plan-policy.js';
import { batchSize, blueGreenMinutes, inPlaceMinutes, MINUTES } from './step-estimates.js';
import { karpenterLines } from './karpenter-lines.js';
import type { Direction } from './direction.js';
import { decideNodegroupAction } from '../deciders/decide-nodegroup-action.js';
import type { PlannedAction, PlanStep } from '../../ports/upgrade-plan.js';

/**
 * The data-plane step(s) of one unit in one hop, with the strategy clusters.yaml gives it and the per-resource
 * actions the job is held to, decided by the same deciders the steps run (decide-nodegroup-action.ts,
 * decide-ami-action.ts, fargate-workloads.ts): managed node groups in place or blue/green (custom-AMI groups need a
 * launch template version someone supplies), Karpenter by drift with the upgrade budget, self-managed groups by
 * hand, Fargate by restarting its workloads. `name` is the unit's name in this hop (a blue/green group's green
 * clone from the previous hop).
 */
export function dataPlaneSteps(snapshot: ClusterSnapshot, unit: DataPlaneUnit, to: string, policy: PlanPolicy, direction: Direction, name: string = unit.name): PlanStep[] {
  const toward = direction.toward;
  const cluster = snapshot.name;
  const from = unit.minor;
  const base = { phase: 'data-plane' as const, resource: unit.ref, from, to };
  switch (unit.type) {
    case 'managed-nodegroup': {
      const ng = unit.nodegroup;
      const chosen = policy.nodegroup(name);
      const perBatch = batchSize(unit.nodes, ng?.maxUnavailable, ng?.maxUnavailablePercentage);
      const decision = decideNodegroupAction({ ...ng, name, version: from, launchTemplate: ng?.launchTemplate }, chosen, to);
      if (decision.action === 'at-target') return [];
      const action: PlannedAction = { resource: `nodegroup/${name}`, action: decision.action, from, to, reason: decision.reason, ...(chosen.launchTemplateVersion ? { launchTemplateVersion: chosen.launchTemplateVersion } : {}) };
      Object.assign(base, { resource: action.resource, actions: [action] });
      if (unit.customAmi) {
        const lt = ng?.launchTemplate ? `${ng.launchTemplate.name ?? ng.launchTemplate.id}` : 'its launch template';
        const families = ['AL2', 'AL2023'] as const;
        const family = families.find((f) => snapshot.amis.some((a) => a.family === f && a.imageId === ng?.releaseVersion));
        const arch = archOfAmiType(ng?.amiType);
        const lookup = family ? findAmi(snapshot, to, family, arch) : undefined;
        const amiText = lookup?.imageId ?? `an AMI built for ${to}`;
        // Issue 13: with an AMI source in clusters.yaml the job makes the launch template version itself.
        const source = configuredAmiSource(chosen, to);
        const automated = Boolean(chosen.launchTemplateVersion || source);
        return [
          {
            ...base,
            actions: [action],
            kind: 'managed-nodegroups',
            strategy: automated ? 'in-place' : 'manual',
            manual: !automated,
            title: chosen.launchTemplateVersion
              ? `Roll custom-AMI node group ${name} ${toward} launch template ${lt} version ${chosen.launchTemplateVersion}`
              : source
                ? `Roll custom-AMI node group ${name} ${toward} a new launch template ${lt} version with ${source.label}`
                : `Custom-AMI node group ${name}: supply a launch template version with ${amiText}, then roll it`,
            // Without a version or a source the job cannot roll it: it asks only then, to skip it (plan-gates.ts).
            ...(automated ? { gate: `Roll node group ${name} (${plural(unit.nodes, 'node')}) to launch template version ${chosen.launchTemplateVersion ?? '<new>'}?` } : {}),
            estimateMinutes: inPlaceMinutes(unit.nodes, perBatch),
            details: [
              `EKS does not move a node group pinned to its own AMI on a version bump.`,
              ...(family ? [`Its AMI is the EKS-optimized ${family} one; for ${to} that is ${describeTargetAmi(lookup, to, family, arch)}.`] : []),
              `${perBatch} node(s) per batch; PDBs are respected (a blocked drain fails after 15 minutes with PodEvictionFailure).`],
            commands: [
              `aws ec2 create-launch-template-version --launch-template-name ${lt} --source-version ${ng?.launchTemplate?.version ?? '$Latest'} --launch-template-data '{"ImageId":"${lookup?.imageId ?? `<${to} AMI>`}"}'`,
              `aws eks update-nodegroup-version --cluster-name ${cluster} --nodegroup-name ${name} --launch-template name=${lt},version=${chosen.launchTemplateVersion ?? '<new version>'}`,
            ],
          },
        ];
      }
      if (decision.action === 'blue-green') {
        return [
          {
            ...base,
            actions: [action],
            kind: 'managed-nodegroups',
            strategy: 'blue-green',
            title: `Blue/green node group ${name}: create a ${to} clone, wait until Ready, then delete ${name}`,
            gate: `Delete blue node group ${name} (${plural(unit.nodes, 'node')}) now that its ${to} clone is Ready?`,
            estimateMinutes: blueGreenMinutes(unit.nodes),
            details: [
              `The clone keeps the labels, taints, subnets, instance types and sizes of ${name}${ng ? ` (${ng.instanceTypes.join(', ')}, ${ng.scaling.min}-${ng.scaling.max}, desired ${ng.scaling.desired})` : ''}.`,
              'Deleting the blue group drains it; PDBs are respected.',
            ],
            commands: [
              `aws eks create-nodegroup --cluster-name ${cluster} --nodegroup-name ${decision.green} --kubernetes-version ${to} … (same labels, taints, subnets, instance types, sizes)`,
              `aws eks wait nodegroup-active --cluster-name ${cluster} --nodegroup-name ${decision.green}`,
              `aws eks delete-nodegroup --cluster-name ${cluster} --nodegroup-name ${name}`,
            ],
          },
        ];
      }
      return [
        {
          ...base,
          actions: [action],
          kind: 'managed-nodegroups',
          strategy: 'in-place',
          title: `Update node group ${name} in place ${toward} ${to} (${plural(unit.nodes, 'node')}, ${perBatch} at a time)`,
          gate: `Roll node group ${name} (${plural(unit.nodes, 'node')}) to ${to}?`,
          estimateMinutes: inPlaceMinutes(unit.nodes, perBatch),
          details: [`UpdateNodegroupVersion: new nodes first, then each old node is cordoned, drained (PDBs respected, 15 minutes at most) and terminated.`],
          commands: [
            `aws eks update-nodegroup-version --cluster-name ${cluster} --nodegroup-name ${name} --kubernetes-version ${to}`,
            `aws eks wait nodegroup-active --cluster-name ${cluster} --nodegroup-name ${name}`,
          ],
        },
      ];
    }
    case 'karpenter':
      return karpenterLines(snapshot, unit, to, policy, direction);
    case 'self-managed': {
      const node = unit.sampleNode;
      const family = node ? familyOfNode(node) : undefined;
      const arch = node ? archOfNode(node) : 'x86_64';
      const ami = family ? describeTargetAmi(findAmi(snapshot, to, family, arch, node ? variantOfNode(node) : 'standard'), to, family, arch) : `an AMI built for ${to}`;
      // Issue 13: the job rolls self-managed groups itself, through their Auto Scaling groups — the ones holding this
      // group's nodes (by the instance id in the node's providerID), named per Auto Scaling group as the step acts.
      const asgs = selfManagedAsgsOf(snapshot, unit.name, to);
      const rules = policy.selfManaged?.(asgs[0] ?? unit.name) ?? DEFAULT_SELF_MANAGED_POLICY;
      const configured = configuredAmiSource(rules, to);
      const actions: PlannedAction[] = asgs.length
        ? asgs.map((asg) => ({ resource: `asg/${asg}`, action: 'roll-self-managed' as const, from, to, reason: `Auto Scaling group ${asg} of self-managed group ${unit.name}: a launch template version with the ${to} AMI, then its nodes replaced` }))
        : [{ resource: `selfmanaged/${unit.name}`, action: 'report-manual', from, to, reason: `no Auto Scaling group of self-managed group ${unit.name} could be read: the job reports it for a person to roll` }];
      return [
        {
          ...base,
          kind: 'self-managed',
          strategy: asgs.length ? 'in-place' : 'manual',
          manual: asgs.length === 0,
          title: `Self-managed group ${unit.name} (${plural(unit.nodes, 'node')}): new launch template version with ${configured?.label ?? ami}, then ${rules.strategy === 'instance-refresh' ? `an instance refresh (MinHealthyPercentage ${rules.minHealthyPercentage})` : 'nodes replaced one at a time'}`,
          estimateMinutes: Math.max(1, unit.nodes) * MINUTES.selfManagedPerNode,
          ...(asgs.length ? { gate: `Roll self-managed group ${unit.name} (${plural(unit.nodes, 'node')}) to ${to}, replacing its nodes?` } : {}),
          actions,
          details: [
            rules.strategy === 'instance-refresh'
              ? 'A lifecycle hook holds each instance the refresh takes out of service until the bot has drained its node (PDBs honoured).'
              : 'Cordon, drain through the Eviction API (PDBs honoured), TerminateInstanceInAutoScalingGroup keeping the desired capacity, wait for the replacement Ready, next.',
            'Pause stops between nodes; Abort before any node moved restores the previous launch template version.',
            ...(asgs.length ? [] : ['No Auto Scaling group of these nodes could be read, so the job names none to roll: it reports the group and you roll it by hand.']),
          ],
          commands: [
            `aws ec2 create-launch-template-version --launch-template-id <its template> --source-version '$Latest' --launch-template-data '{"ImageId":"${findAmi(snapshot, to, family ?? 'AL2', arch)?.imageId ?? `<${to} AMI>`}"}'`,
            'aws autoscaling start-instance-refresh --auto-scaling-group-name <its ASG>',
            `kubectl get nodes -l alpha.eksctl.io/nodegroup-name=${unit.name} -o wide`,
          ],
        },
      ];
    }
    case 'auto-mode':
      // EKS Auto Mode replaces its own nodes after the control plane moves (and before it, in a rollback).
      return [];
    case 'fargate': {
      const { workloads, barePods } = fargateRestarts(snapshot, to);
      // The same decider the Fargate step runs over the live pods; the snapshot's pods name their ReplicaSet, whose
      // Deployment is the ReplicaSet's name without the pod-template-hash.
      const pods = valueOr(snapshot.kube.pods, []);
      const decided = planFargateRestarts({ nodes: valueOr(snapshot.kube.nodes, []), pods, replicaSets: replicaSetsOf(pods), target: to });
      if (decided.workloads.length === 0 && decided.manual.length === 0) return [];
      const actions: PlannedAction[] = [
        ...decided.workloads.map((w) => ({ resource: workloadKey(w), action: 'restart-workload' as const, to, reason: `${plural(w.pods.length, 'pod')} on Fargate nodes older than ${to}` })),
        ...decided.manual.map((text) => ({ resource: `pod/${text.split(' ')[0]}`, action: 'report-manual' as const, to, reason: text })),
      ];
      return [
        {
          ...base,
          kind: 'fargate',
          strategy: 'rollout-restart',
          title: `Restart ${plural(decided.workloads.length, 'Fargate workload')} so ${decided.workloads.length === 1 ? 'its' : 'their'} pods land on ${to} Fargate nodes`,
          estimateMinutes: MINUTES.fargateRestart,
          ...(decided.workloads.length ? { gate: `Restart ${plural(decided.workloads.length, 'Fargate workload')} so ${decided.workloads.length === 1 ? 'its' : 'their'} pods move to ${to} Fargate nodes?` } : {}),
          details: [
            ...workloads.map((w) => `${w.kind.toLowerCase()}/${w.namespace}/${w.name}: ${plural(w.pods.length, 'pod')} on ${w.kubelets.join(', ')}`),
            ...(barePods.length > 0 ? [`Bare pods to re-create by hand: ${barePods.join(', ')}`] : []),
          ],
          commands: workloads.map((w) => `kubectl rollout restart ${w.kind.toLowerCase()} ${w.name} -n ${w.namespace} && kubectl rollout status ${w.kind.toLowerCase()} ${w.name} -n ${w.namespace}`),
          actions,
        },
      ];
    }
  }
}

/** ReplicaSets as their pods name them (the snapshot does not list ReplicaSets): enough to find each Deployment. */
function replicaSetsOf(pods: KubeObject[]): KubeObject[] {
  const seen = new Map<string, KubeObject>();
  for (const pod of pods) {
    const owner = pod.metadata.ownerReferences?.find((ref) => ref.kind === 'ReplicaSet');
    const hash = pod.metadata.labels?.['pod-template-hash'];
    if (!owner || !hash || !owner.name.endsWith(`-${hash}`)) continue;
    const namespace = pod.metadata.namespace ?? 'default';
    seen.set(`${namespace}/${owner.name}`, {
      metadata: { name: owner.name, namespace, ownerReferences: [{ kind: 'Deployment', name: owner.name.slice(0, -hash.length - 1) }] },
    } as KubeObject);
  }
  return [...seen.values()];
}

/**
 * The Auto Scaling groups (in the snapshot) holding nodes of one self-managed group that the hop rolls, sorted: the
 * ones selfManagedWorldDecision, the rule the step checks the world with, says roll-self-managed.
 */
export function selfManagedAsgsOf(snapshot: ClusterSnapshot, group: string, to: string): string[] {
  const groups = snapshot.autoScalingGroups?.ok ? snapshot.autoScalingGroups.value : [];
  const nodes = valueOr(snapshot.kube.nodes, []).filter((node) => {
    const ref = computeOfNode(node);
    return ref.type === 'self-managed' && ref.name === group;
  });
  const ofGroup = new Set(nodes.map(instanceIdOfNode).filter((id): id is string => !!id));
  return groups
    .filter((asg) => asg.instanceIds.some((id) => ofGroup.has(id)))
    .filter((asg) => selfManagedWorldDecision(asg.name, instanceViewsOf(asg.instanceIds.map((instanceId) => ({ instanceId })), nodes), to).action === 'roll-self-managed')
    .map((asg) => asg.name)
    .sort();
}
