import { archOfAmiType, archOfNode, describeTargetAmi, familyOfNode, findAmi, variantOfNode } from './ami-parameters.js';
import { configuredAmiSource } from './ami-source.js';
import type { ClusterSnapshot } from './cluster-snapshot.js';
import { driftBudget } from './checks/karpenter-checks.js';
import { fargateRestarts } from './checks/fargate-checks.js';
import type { DataPlaneUnit } from './data-plane-units.js';
import { plural } from './finding.js';
import type { PlanPolicy } from './plan-policy.js';
import { batchSize, blueGreenMinutes, budgetParallelism, driftMinutes, inPlaceMinutes, MINUTES } from './step-estimates.js';
import type { PlanStep } from './upgrade-plan.js';

/**
 * The data-plane step(s) of one unit in one hop, with the strategy clusters.yaml gives it: managed node groups in
 * place or blue/green (custom-AMI groups need a launch template version someone supplies), Karpenter by drift with
 * the upgrade budget, self-managed groups by hand, Fargate by restarting its workloads.
 */
export function dataPlaneSteps(snapshot: ClusterSnapshot, unit: DataPlaneUnit, to: string, policy: PlanPolicy): PlanStep[] {
  const cluster = snapshot.name;
  const from = unit.minor;
  const base = { phase: 'data-plane' as const, resource: unit.ref, from, to };
  switch (unit.type) {
    case 'managed-nodegroup': {
      const ng = unit.nodegroup;
      const chosen = policy.nodegroup(unit.name);
      const perBatch = batchSize(unit.nodes, ng?.maxUnavailable, ng?.maxUnavailablePercentage);
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
            kind: 'managed-nodegroup',
            strategy: automated ? 'in-place' : 'manual',
            manual: !automated,
            title: chosen.launchTemplateVersion
              ? `Roll custom-AMI node group ${unit.name} to launch template ${lt} version ${chosen.launchTemplateVersion}`
              : source
                ? `Roll custom-AMI node group ${unit.name} to a new launch template ${lt} version with ${source.label}`
                : `Custom-AMI node group ${unit.name}: supply a launch template version with ${amiText}, then roll it`,
            gate: `Roll node group ${unit.name} (${plural(unit.nodes, 'node')}) to launch template version ${chosen.launchTemplateVersion ?? '<new>'}?`,
            estimateMinutes: inPlaceMinutes(unit.nodes, perBatch),
            details: [
              `EKS does not move a node group pinned to its own AMI on a version bump.`,
              ...(family ? [`Its AMI is the EKS-optimized ${family} one; for ${to} that is ${describeTargetAmi(lookup, to, family, arch)}.`] : []),
              `${perBatch} node(s) per batch; PDBs are respected (a blocked drain fails after 15 minutes with PodEvictionFailure).`],
            commands: [
              `aws ec2 create-launch-template-version --launch-template-name ${lt} --source-version ${ng?.launchTemplate?.version ?? '$Latest'} --launch-template-data '{"ImageId":"${lookup?.imageId ?? `<${to} AMI>`}"}'`,
              `aws eks update-nodegroup-version --cluster-name ${cluster} --nodegroup-name ${unit.name} --launch-template name=${lt},version=${chosen.launchTemplateVersion ?? '<new version>'}`,
            ],
          },
        ];
      }
      if (chosen.strategy === 'blue-green') {
        return [
          {
            ...base,
            kind: 'managed-nodegroup',
            strategy: 'blue-green',
            title: `Blue/green node group ${unit.name}: create a ${to} clone, wait until Ready, then delete ${unit.name}`,
            gate: `Delete blue node group ${unit.name} (${plural(unit.nodes, 'node')}) now that its ${to} clone is Ready?`,
            estimateMinutes: blueGreenMinutes(unit.nodes),
            details: [
              `The clone keeps the labels, taints, subnets, instance types and sizes of ${unit.name}${ng ? ` (${ng.instanceTypes.join(', ')}, ${ng.scaling.min}-${ng.scaling.max}, desired ${ng.scaling.desired})` : ''}.`,
              'Deleting the blue group drains it; PDBs are respected.',
            ],
            commands: [
              `aws eks create-nodegroup --cluster-name ${cluster} --nodegroup-name ${unit.name}-${to.replace('.', '-')} --kubernetes-version ${to} … (same labels, taints, subnets, instance types, sizes)`,
              `aws eks wait nodegroup-active --cluster-name ${cluster} --nodegroup-name ${unit.name}-${to.replace('.', '-')}`,
              `aws eks delete-nodegroup --cluster-name ${cluster} --nodegroup-name ${unit.name}`,
            ],
          },
        ];
      }
      return [
        {
          ...base,
          kind: 'managed-nodegroup',
          strategy: 'in-place',
          title: `Update node group ${unit.name} in place to ${to} (${plural(unit.nodes, 'node')}, ${perBatch} at a time)`,
          gate: `Roll node group ${unit.name} (${plural(unit.nodes, 'node')}) to ${to}?`,
          estimateMinutes: inPlaceMinutes(unit.nodes, perBatch),
          details: [`UpdateNodegroupVersion: new nodes first, then each old node is cordoned, drained (PDBs respected, 15 minutes at most) and terminated.`],
          commands: [
            `aws eks update-nodegroup-version --cluster-name ${cluster} --nodegroup-name ${unit.name} --kubernetes-version ${to}`,
            `aws eks wait nodegroup-active --cluster-name ${cluster} --nodegroup-name ${unit.name}`,
          ],
        },
      ];
    }
    case 'karpenter': {
      const pools = unit.nodePools ?? [];
      const poolNames = pools.map((p) => p.metadata.name);
      const budgets = pools.map((p) => `${p.metadata.name}: ${driftBudget(p).nodes.map((n) => `"${n}"`).join(', ')}`).join('; ');
      const parallel = budgetParallelism(policy.upgradeBudget, unit.nodes);
      const minutes = driftMinutes(unit.nodes, policy.upgradeBudget);
      const budgetCommands = poolNames.map(
        (pool) => `kubectl patch nodepool ${pool} --type merge -p '{"spec":{"disruption":{"budgets":[{"nodes":"${policy.upgradeBudget}"}]}}}'`,
      );
      const common = {
        ...base,
        kind: 'karpenter' as const,
        strategy: 'drift' as const,
        estimateMinutes: minutes,
      };
      if (unit.ami?.selection === 'alias') {
        return [
          {
            ...common,
            title: `Follow the drift of NodePool ${poolNames.join(', ') || '(none)'} (alias ${unit.ami.alias}) to ${to} at nodes: "${policy.upgradeBudget}"`,
            details: [
              `The alias follows the control plane: Karpenter finds the ${to} AMI and drifts ${plural(unit.nodes, 'node')} by itself, ${parallel} at a time.`,
              `Budgets now: ${budgets || 'none'}; restored after the drift.`,
            ],
            commands: [...budgetCommands, 'kubectl get nodeclaims -w'],
          },
        ];
      }
      const family = unit.ami?.family;
      const arch = unit.ami?.arch ?? 'x86_64';
      const lookup = family ? findAmi(snapshot, to, family, arch) : undefined;
      const target = family ? describeTargetAmi(lookup, to, family, arch) : `an AMI built for ${to}`;
      return [
        {
          ...common,
          title: `Point EC2NodeClass ${unit.name} at ${lookup?.imageId ?? `the ${to} AMI`} and drift NodePool ${poolNames.join(', ') || '(none)'} at nodes: "${policy.upgradeBudget}"`,
          gate: `Start replacing ${plural(unit.nodes, 'Karpenter node')} of ${poolNames.join(', ') || unit.name} (${parallel} at a time)?`,
          details: [
            `amiSelectorTerms pins ${unit.ami?.pinned.join(', ') || 'an AMI'}; the ${to} AMI is ${target}.`,
            `Budgets now: ${budgets || 'none'}; set to nodes: "${policy.upgradeBudget}" for the drift, restored afterwards.`,
          ],
          commands: [
            ...budgetCommands,
            `kubectl patch ec2nodeclass ${unit.name} --type merge -p '{"spec":{"amiSelectorTerms":[{"id":"${lookup?.imageId ?? `<${to} AMI>`}"}]}}'`,
            'kubectl get nodeclaims -w',
          ],
        },
      ];
    }
    case 'self-managed': {
      const node = unit.sampleNode;
      const family = node ? familyOfNode(node) : undefined;
      const arch = node ? archOfNode(node) : 'x86_64';
      const ami = family ? describeTargetAmi(findAmi(snapshot, to, family, arch, node ? variantOfNode(node) : 'standard'), to, family, arch) : `an AMI built for ${to}`;
      // Issue 13: the job rolls self-managed groups itself, through their Auto Scaling group.
      const rules = policy.selfManaged?.(unit.name) ?? { strategy: 'rolling' as const, minHealthyPercentage: 90 };
      const configured = configuredAmiSource(rules, to);
      return [
        {
          ...base,
          kind: 'self-managed',
          strategy: 'in-place',
          title: `Self-managed group ${unit.name} (${plural(unit.nodes, 'node')}): new launch template version with ${configured?.label ?? ami}, then ${rules.strategy === 'instance-refresh' ? `an instance refresh (MinHealthyPercentage ${rules.minHealthyPercentage})` : 'nodes replaced one at a time'}`,
          estimateMinutes: Math.max(1, unit.nodes) * MINUTES.selfManagedPerNode,
          details: [
            rules.strategy === 'instance-refresh'
              ? 'A lifecycle hook holds each instance the refresh takes out of service until the bot has drained its node (PDBs honoured).'
              : 'Cordon, drain through the Eviction API (PDBs honoured), TerminateInstanceInAutoScalingGroup keeping the desired capacity, wait for the replacement Ready, next.',
            'Pause stops between nodes; Abort before any node moved restores the previous launch template version.',
          ],
          commands: [
            `aws ec2 create-launch-template-version --launch-template-id <its template> --source-version '$Latest' --launch-template-data '{"ImageId":"${findAmi(snapshot, to, family ?? 'AL2', arch)?.imageId ?? `<${to} AMI>`}"}'`,
            'aws autoscaling start-instance-refresh --auto-scaling-group-name <its ASG>',
            `kubectl get nodes -l alpha.eksctl.io/nodegroup-name=${unit.name} -o wide`,
          ],
        },
      ];
    }
    case 'fargate': {
      const { workloads, barePods } = fargateRestarts(snapshot, to);
      if (workloads.length === 0 && barePods.length === 0) return [];
      return [
        {
          ...base,
          kind: 'fargate',
          strategy: 'rollout-restart',
          title: `Restart ${plural(workloads.length, 'Fargate workload')} so ${workloads.length === 1 ? 'its' : 'their'} pods land on ${to} Fargate nodes`,
          estimateMinutes: MINUTES.fargateRestart,
          details: [
            ...workloads.map((w) => `${w.kind.toLowerCase()}/${w.namespace}/${w.name}: ${plural(w.pods.length, 'pod')} on ${w.kubelets.join(', ')}`),
            ...(barePods.length > 0 ? [`Bare pods to re-create by hand: ${barePods.join(', ')}`] : []),
          ],
          commands: workloads.map((w) => `kubectl rollout restart ${w.kind.toLowerCase()} ${w.name} -n ${w.namespace} && kubectl rollout status ${w.kind.toLowerCase()} ${w.name} -n ${w.namespace}`),
        },
      ];
    }
  }
}
