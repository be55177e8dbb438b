import { describeBudgets } from '../../src/planning/workloads/disruption-budget.js';
import { describeTerms } from '../../src/planning/deciders/decide-ami-action.js';
import type { GateAction } from '../../src/ports/timeline-event.js';
import type { Command, UpdateCommand } from './commands.js';

/**
 * The words of the commands (jobs/engine/commands.ts): what a dry run says instead of carrying a command out, and the
 * timeline's "issued" line once EKS has answered an update. The executor (execute-commands.ts) is their one user.
 */

const ACTION_LABELS: Record<GateAction, string> = { continue: 'Continue', abort: 'Abort', force: 'Force', remedy: 'Remedy' };

/** What a dry run says instead of carrying the command out: one sentence, in the words the thread has always used. */
export function describeCommand(command: Command): string {
  switch (command.kind) {
    case 'update-cluster-version': {
      const how = command.rollback ? ` with rollbackConfig.timeoutMinutes ${command.rollback.timeoutMinutes} (a VersionRollback)` : '';
      return `would call UpdateClusterVersion ${command.cluster} → ${command.to}${how}, then follow DescribeUpdate until it ends (about 10 minutes)`;
    }
    case 'update-addon':
      return `would call UpdateAddon ${command.addon} ${command.from} → ${command.to}${command.goal && command.goal !== command.to ? ` (then on to ${command.goal})` : ''}`;
    case 'update-nodegroup-version':
      return `would call UpdateNodegroupVersion ${command.nodegroup} ${command.from ?? '?'} → ${command.to} (in place)`;
    case 'roll-launch-template':
      return `${command.nodegroup}: would ${command.version ? `use launch template version ${command.version}` : 'create a launch template version'} with ${command.imageId} and call UpdateNodegroupVersion with it`;
    case 'replace-nodegroup':
      return `would create ${command.green} as a ${command.to} clone of ${command.blue}, wait until Ready, ask, then delete ${command.blue}`;
    case 'roll-self-managed': {
      const how = command.strategy === 'instance-refresh' ? `an instance refresh (MinHealthyPercentage ${command.minHealthyPercentage})` : 'the bot, one node at a time (cordon, drain, terminate, wait for the replacement)';
      return `${command.group}: would add a launch template version with ${command.imageId} (${command.source}) and replace its ${command.instances} instance(s) by ${how}`;
    }
    case 'drive-karpenter':
      return [...command.changes.map((line) => `would: ${line}`), ...command.reports.map((line) => `report: ${line}`)].join('; ') || 'no NodePool needs changes';
    case 'set-nodepool-budgets':
      return `would set the disruption budgets of NodePool ${command.pool} to ${describeBudgets(command.budgets)}`;
    case 'point-node-class':
      return `would set the amiSelectorTerms of EC2NodeClass ${command.nodeClass} to ${describeTerms(command.terms)}`;
    case 'hold-budgets':
      return `would set, before the control plane moves (their EC2NodeClass follows the cluster version): ${command.pools.join('; ')}`;
    case 'create-nodegroup':
      return `would call CreateNodegroup ${command.request.nodegroupName}: a ${command.request.version ?? 'same-AMI'} clone of ${command.blue}`;
    case 'delete-nodegroup':
      return `would call DeleteNodegroup ${command.nodegroup}`;
    case 'terminate-instance':
      return `would drain ${command.node} and call TerminateInstanceInAutoScalingGroup ${command.instanceId} of ${command.group}`;
    case 'start-instance-refresh':
      return `would call StartInstanceRefresh ${command.group} (MinHealthyPercentage ${command.minHealthyPercentage}, SkipMatching)`;
    case 'create-launch-template-version':
      return `would create a version of launch template ${command.launchTemplateId} from version ${command.sourceVersion} with ${command.imageId}`;
    case 'point-group':
      return `would ${command.restore ? 'put' : 'point'} ${command.group} ${command.restore ? 'back on' : 'at'} launch template version ${command.version}${command.defaultVersion !== undefined ? ` (the template's default ${command.defaultVersion})` : ''}`;
    case 'put-drain-hook':
      return `would put the termination lifecycle hook ${command.hook} on ${command.group} (heartbeat ${command.heartbeatSeconds} s)`;
    case 'complete-drain-hook':
      return `would let ${command.instanceId} of ${command.group} go (CompleteLifecycleAction ${command.hook})`;
    case 'remove-drain-hook':
      return `would remove the lifecycle hook ${command.hook} from ${command.group}`;
    case 'cancel-instance-refresh':
      return `would call CancelInstanceRefresh ${command.group}`;
    case 'scale-for-drain':
      return `would ${command.remedy.label}: scale ${command.remedy.namespace}/${command.remedy.deployment} to ${command.remedy.replicas} replicas and wait until they are available`;
    case 'cordon-node':
      return `would cordon ${command.node}`;
    case 'force-drain':
      return `would delete the pods the PDBs protect on ${command.nodes.join(', ')} (Force by ${command.by})`;
    case 'cancel-rollback':
      return `would call CancelUpdate ${command.updateId} of ${command.cluster}`;
    case 'adopt-update':
      return `would follow the update already in progress (${command.updateId}) instead of starting another`;
    case 'restart-workload':
      return `would restart ${command.resource === 'statefulsets' ? 'statefulset' : 'deployment'} ${command.namespace}/${command.name} (as kubectl rollout restart)`;
    case 'restart-workloads': {
      const lines = [command.workloads.length ? `would restart ${command.workloads.join(', ')} one at a time (as kubectl rollout restart) so their pods move to ${command.to} Fargate nodes` : 'no workload to restart'];
      if (command.manual.length) lines.push(`for the operator: ${command.manual.join('; ')}`);
      return lines.join('; ');
    }
    case 'verify-hop':
      return `would check that ${command.cluster} is at ${command.to} and ACTIVE, nodes within skew, deployments available, PDBs healthy`;
    case 'ask-gate': {
      if (command.said) return command.said;
      if (command.before) return `would ${command.before} and ask the approvers "${command.gate.title.replace(/\?$/, '')}"`;
      return `would ask the approvers "${command.gate.title}" (${command.gate.actions.map((action) => ACTION_LABELS[action]).join(' / ')}) and wait for an answer`;
    }
    case 'stop-at-findings':
      return `would stop here: ${command.findings.join('; ')}`;
    case 'save-state':
      return 'would save the step state';
    case 'record-acted':
      return `would record ${command.acted.action} of ${command.acted.resource}`;
    case 'safe-point':
      return `would stop for a Pause or an Abort before ${command.before}`;
    case 'reopen-gate':
      return `would ask ${command.gateId} again`;
  }
}

const BOOKKEEPING: readonly Command['kind'][] = ['save-state', 'record-acted', 'safe-point', 'reopen-gate'];

/** The commands a dry run describes: the ones a person reads in the summary (bookkeeping is left out). */
export function describeCommands(commands: readonly Command[]): string {
  return commands
    .filter((command) => !BOOKKEEPING.includes(command.kind))
    .map(describeCommand)
    .join('; ');
}

/** The "issued" line of the timeline for an update command, once EKS answered with the update's id. */
export function describeIssued(command: UpdateCommand, updateId: string): string {
  if (command.kind === 'update-nodegroup-version') return `UpdateNodegroupVersion ${command.nodegroup} → ${command.to}${command.force ? ' with force' : ''} issued (update ${updateId}).`;
  if (command.kind === 'update-addon') return `UpdateAddon ${command.addon} ${command.from} → ${command.to} issued (update ${updateId}).`;
  const rollback = command.rollback ? ` (rollback, timeout ${command.rollback.timeoutMinutes} min)` : '';
  return `UpdateClusterVersion ${command.cluster} → ${command.to}${rollback}${command.notes.join('')} issued (update ${updateId}).${command.after ? ` ${command.after}` : ''}`;
}
