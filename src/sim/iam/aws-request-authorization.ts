import { AwsApiError } from '../aws/aws-error.js';
import { matchEksRoute } from '../aws/eks/eks-routes.js';
import type { SimWorld } from '../aws/world-types.js';
import type { CallerIdentity } from './caller-identities.js';
import { evaluatePolicy, type AuthorizationRequest, type Decision, type PolicyDocument } from './policy-document.js';

/**
 * What IAM authorizes for one simulated AWS call — the action, the resource ARN it is scoped to (per the Service
 * Authorization Reference: EKS clusters, node groups, add-ons and Fargate profiles; SSM parameters; EC2 launch
 * templates; IAM roles for sts:AssumeRole; `*` for List/Describe calls without resource-level permissions) and the
 * extra checks AWS makes alongside (CreateNodegroup passes the node role: iam:PassRole) — and the error each
 * service answers when the identity policy does not allow it.
 */
export type { AwsService } from '../aws/aws-service.js';
import type { AwsService } from '../aws/aws-service.js';

export interface AwsCall {
  service: AwsService;
  operation: string;
  region: string;
  /** EKS: method + path + JSON body; query protocols: the form; SSM: the JSON body. */
  method?: string;
  path?: string;
  form?: URLSearchParams;
  body?: Record<string, any>;
}

function eksResources(world: SimWorld, call: AwsCall): AuthorizationRequest[] {
  const matched = matchEksRoute(call.method ?? 'GET', call.path ?? '/');
  const action = `eks:${call.operation}`;
  if (!matched) return [{ action, resource: '*' }];
  const p = matched.params;
  const clusterName = p.name ?? p.clusterName;
  if (!clusterName) return [{ action, resource: '*' }];
  const cluster = world.cluster(clusterName);
  const region = cluster?.region ?? call.region;
  const base = `arn:aws:eks:${region}:${world.accountId}`;
  let resource = `${base}:cluster/${clusterName}`;
  if (p.nodegroupName) resource = cluster?.nodegroups.get(p.nodegroupName)?.arn ?? `${base}:nodegroup/${clusterName}/${p.nodegroupName}/*`;
  else if (p.addonName) resource = `${base}:addon/${clusterName}/${p.addonName}/*`;
  else if (p.fargateProfileName) resource = cluster?.fargateProfiles.get(p.fargateProfileName)?.arn ?? `${base}:fargateprofile/${clusterName}/${p.fargateProfileName}/*`;
  const requests: AuthorizationRequest[] = [{ action, resource }];
  // CreateNodegroup hands the node role to EKS: IAM checks iam:PassRole on it as well.
  if (call.operation === 'CreateNodegroup' && typeof call.body?.nodeRole === 'string') {
    requests.push({ action: 'iam:PassRole', resource: call.body.nodeRole, context: { 'iam:PassedToService': 'eks.amazonaws.com' } });
  }
  return requests;
}

function ec2Resource(world: SimWorld, call: AwsCall): string {
  if (!/LaunchTemplate$/.test(call.operation) && call.operation !== 'CreateLaunchTemplateVersion') return '*';
  const form = call.form ?? new URLSearchParams();
  const name = form.get('LaunchTemplateName');
  const id = form.get('LaunchTemplateId') ?? [...world.launchTemplates.values()].find((t) => t.name === name)?.id ?? '*';
  return `arn:aws:ec2:${call.region}:${world.accountId}:launch-template/${id}`;
}

/** The authorization requests one call makes; empty for calls IAM never denies (GetCallerIdentity, web identity). */
export function authorizationRequests(world: SimWorld, call: AwsCall): AuthorizationRequest[] {
  switch (call.service) {
    case 'eks':
      return eksResources(world, call);
    case 'ssm': {
      const name = String(call.body?.Name ?? '');
      return [{ action: `ssm:${call.operation}`, resource: name ? `arn:aws:ssm:${call.region}::parameter${name.startsWith('/') ? '' : '/'}${name}` : '*' }];
    }
    case 'ec2':
      return [{ action: `ec2:${call.operation}`, resource: ec2Resource(world, call) }];
    case 'sts':
      // "No permissions are required to perform this operation" (GetCallerIdentity); web identity is trust-only.
      if (call.operation !== 'AssumeRole') return [];
      return [{ action: 'sts:AssumeRole', resource: call.form?.get('RoleArn') ?? '*' }];
    case 'iam':
      // SimulatePrincipalPolicy is authorized on the principal it simulates (Service Authorization Reference, IAM).
      return [{ action: `iam:${call.operation}`, resource: call.form?.get('PolicySourceArn') ?? '*' }];
    case 'monitoring': {
      // CloudWatch's actions are cloudwatch:*, though SigV4 signs for "monitoring" (Service Authorization Reference,
      // Amazon CloudWatch): PutMetricAlarm and SetAlarmState on the alarm, DescribeAlarms on alarms (alarm*),
      // GetMetricData on no resource (*).
      const alarms = `arn:aws:cloudwatch:${call.region}:${world.accountId}:alarm:`;
      const name = typeof call.body?.AlarmName === 'string' ? call.body.AlarmName : undefined;
      const resource = call.operation === 'GetMetricData' ? '*' : name && call.operation !== 'DescribeAlarms' ? `${alarms}${name}` : `${alarms}*`;
      return [{ action: `cloudwatch:${call.operation}`, resource }];
    }
    case 'autoscaling': {
      const group = call.form?.get('AutoScalingGroupName');
      const resource = group ? `arn:aws:autoscaling:${call.region}:${world.accountId}:autoScalingGroup:*:autoScalingGroupName/${group}` : '*';
      return [{ action: `autoscaling:${call.operation}`, resource }];
    }
  }
}

function denialSentence(caller: CallerIdentity, request: AuthorizationRequest, decision: Decision): string {
  const why =
    decision === 'explicit-deny'
      ? 'with an explicit deny in an identity-based policy'
      : `because no identity-based policy allows the ${request.action} action`;
  return `User: ${caller.arn} is not authorized to perform: ${request.action} on resource: ${request.resource} ${why}`;
}

/** The error each service answers with when IAM denies the call (status and code as the SDKs parse them). */
export function accessDenied(service: AwsService, caller: CallerIdentity, request: AuthorizationRequest, decision: Decision): AwsApiError {
  const sentence = denialSentence(caller, request, decision);
  switch (service) {
    case 'ec2': {
      const encoded = Buffer.from(JSON.stringify({ allowed: false, explicitDeny: decision === 'explicit-deny', action: request.action, resource: request.resource })).toString('base64url');
      return new AwsApiError(403, 'UnauthorizedOperation', `You are not authorized to perform this operation. ${sentence}. Encoded authorization failure message: ${encoded}`);
    }
    case 'sts':
    case 'autoscaling':
    case 'iam':
    // CloudWatch (JSON 1.0, query-compatible) keeps its query-protocol code: x-amzn-query-error AccessDenied;Sender.
    case 'monitoring':
      return new AwsApiError(403, 'AccessDenied', sentence);
    case 'ssm':
      return new AwsApiError(400, 'AccessDeniedException', sentence);
    case 'eks':
      return new AwsApiError(403, 'AccessDeniedException', sentence);
  }
}

/** Throws the service's access-denied error when the policy does not allow every check the call makes. */
export function authorizeAwsCall(policy: PolicyDocument, world: SimWorld, caller: CallerIdentity, call: AwsCall): void {
  for (const request of authorizationRequests(world, call)) {
    const decision = evaluatePolicy(policy, request);
    if (decision !== 'allowed') throw accessDenied(call.service, caller, request, decision);
  }
}
