import { readFileSync } from 'node:fs';
import { parseClustersConfig } from '../../src/config/clusters-config.js';

/**
 * The table of lost-answers.test.ts and lost-answers-worker-restart.test.ts (two files, so the suite's two workers
 * run them side by side). Issue 23 item 1: a step that finds its own earlier action already under way adopts it.
 * Every mutating action of deploy/iam/permissions-policy.json that an upgrade makes has its answer lost once (the
 * simulator's `dropAnswers` fault: the action is done, then the connection closes halted), through the real SDK:
 * - "the answer was lost": the SDK retries the call itself (maxAttempts 2) and gets "already under way" back;
 * - "a retry": the SDK gives up (maxAttempts 1), the step fails with a network error and the job runs it again.
 * - "a worker restart": the worker process is SIGKILLed as the answer is lost and another one takes the job over
 *   (the instance-refresh actions and UpdateClusterVersion here; the workshop's termination is
 *   engine-crash-self-managed.test.ts, its UpdateClusterVersion test/e2e/chaos-kill-points-short.test.ts).
 * Either way the upgrade ends Succeeded, each action taken once.
 */
export interface Row {
  action: string;
  /** Why the upgrade does not make it, when it does not (an abort path only). */
  notMade?: string;
}

const IAM_POLICY = JSON.parse(readFileSync('deploy/iam/permissions-policy.json', 'utf8')) as { Statement: Array<{ Action: string[] }> };
// iam:SimulatePrincipalPolicy (doctor's optional statement) evaluates the policy and changes nothing.
const READS = /^(eks|ec2|autoscaling|ssm|sts|iam|cloudwatch):(Describe|List|Get|AssumeRole|PassRole|Simulate)/;
export const MUTATING = IAM_POLICY.Statement.flatMap((s) => s.Action).filter((action) => !READS.test(action));

const WORKSHOP = parseClustersConfig({ clusters: [{
  name: 'eksworkshop-eksctl', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'],
  karpenter: { upgradeBudget: '1' },
  nodegroups: { 'blue-mng*': { strategy: 'blue-green' }, 'custom*': { strategy: 'in-place', amiParameter: '/eks-upgrade-bot/amis/workshop/{minor}/image_id' }, '*': { strategy: 'in-place' } },
}] });
export const REFRESH_CLUSTERS = [{
  name: 'batch', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'],
  selfManaged: { 'gpu-batch*': { strategy: 'instance-refresh', minHealthyPercentage: 66 } },
}];
export const REFRESH = parseClustersConfig({ clusters: REFRESH_CLUSTERS });

export const WORLDS = {
  workshop: { scenario: 'workshop', config: WORKSHOP, cluster: 'eksworkshop-eksctl', from: '1.25', to: '1.26' },
  refresh: { scenario: 'self-managed-refresh', config: REFRESH, cluster: 'batch', from: '1.30', to: '1.31' },
} as const;

/** Which upgrade makes each mutating action; the table covers every one the IAM policy grants. */
export const TABLE: Record<string, Row & { world?: keyof typeof WORLDS }> = {
  'eks:UpdateClusterVersion': { action: 'UpdateClusterVersion', world: 'workshop' },
  'eks:UpdateAddon': { action: 'UpdateAddon', world: 'workshop' },
  'eks:UpdateNodegroupVersion': { action: 'UpdateNodegroupVersion', world: 'workshop' },
  'eks:CreateNodegroup': { action: 'CreateNodegroup', world: 'workshop' },
  'eks:DeleteNodegroup': { action: 'DeleteNodegroup', world: 'workshop' },
  'ec2:CreateLaunchTemplateVersion': { action: 'CreateLaunchTemplateVersion', world: 'workshop' },
  'ec2:ModifyLaunchTemplate': { action: 'ModifyLaunchTemplate', world: 'workshop' },
  'autoscaling:UpdateAutoScalingGroup': { action: 'UpdateAutoScalingGroup', world: 'workshop' },
  'autoscaling:TerminateInstanceInAutoScalingGroup': { action: 'TerminateInstanceInAutoScalingGroup', world: 'workshop' },
  'autoscaling:PutLifecycleHook': { action: 'PutLifecycleHook', world: 'refresh' },
  'autoscaling:StartInstanceRefresh': { action: 'StartInstanceRefresh', world: 'refresh' },
  'autoscaling:CompleteLifecycleAction': { action: 'CompleteLifecycleAction', world: 'refresh' },
  'autoscaling:DeleteLifecycleHook': { action: 'DeleteLifecycleHook', world: 'refresh' },
  'eks:StartInsightsRefresh': { action: 'StartInsightsRefresh', notMade: 'made by plan/status reads, never by a step' },
  'eks:CancelUpdate': { action: 'CancelUpdate', notMade: 'made only when a rollback on Auto Mode is aborted' },
  'autoscaling:CancelInstanceRefresh': { action: 'CancelInstanceRefresh', notMade: 'made only when an instance refresh is aborted' },
};
