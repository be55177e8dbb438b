import { servePage } from '../list-pages.js';
import { AwsApiError } from '../aws-error.js';
import { beginTermination, completeTermination, launchTemplateOf, reconcileCapacity, resolveVersion } from './asg-instances.js';
import { xmlEscape } from './ec2-service.js';
import { cancelInstanceRefresh, percentageOf, startInstanceRefresh } from './instance-refresh.js';
import type { SimAutoScalingGroup, SimCluster, SimInstanceRefresh, SimLifecycleHook, SimWorld } from '../world-types.js';

/**
 * EC2 Auto Scaling over the query protocol (form-encoded Action=…, Version=2011-01-01, XML answers with
 * <member> lists), for the calls a self-managed node group upgrade makes and the `aws autoscaling` commands people
 * run beside it. Errors are XML <ErrorResponse>s with the codes AWS uses (ValidationError,
 * InstanceRefreshInProgress, ActiveInstanceRefreshNotFound, ScalingActivityInProgress).
 */
const XMLNS = 'http://autoscaling.amazonaws.com/doc/2011-01-01/';

const tag = (name: string, value: string | number | boolean | undefined) => (value === undefined ? '' : `<${name}>${xmlEscape(String(value))}</${name}>`);
const members = (items: string[]) => items.map((item) => `<member>${item}</member>`).join('');
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function listParam(form: URLSearchParams, prefix: string): string[] {
  const values: string[] = [];
  for (let i = 1; form.has(`${prefix}.member.${i}`); i++) values.push(form.get(`${prefix}.member.${i}`)!);
  return values;
}

const asgPageErrors = {
  badLimit: (limit: string) => new AwsApiError(400, 'ValidationError', `1 validation error detected: Value '${limit}' at 'maxRecords' failed to satisfy constraint: Member must have value less than or equal to 100`),
  badToken: () => new AwsApiError(400, 'InvalidNextToken', 'The token is invalid.'),
};

function required(form: URLSearchParams, name: string): string {
  const value = form.get(name);
  if (!value) throw new AwsApiError(400, 'ValidationError', `1 validation error detected: Value null at '${name.charAt(0).toLowerCase()}${name.slice(1)}' failed to satisfy constraint: Member must not be null`);
  return value;
}

/** DescribeAutoScalingGroups Filters: tag-key, tag-value, tag:<key> (values OR-ed, filters AND-ed). */
function groupFilters(form: URLSearchParams): Array<(g: SimAutoScalingGroup) => boolean> {
  const out: Array<(g: SimAutoScalingGroup) => boolean> = [];
  for (let i = 1; form.has(`Filters.member.${i}.Name`); i++) {
    const name = form.get(`Filters.member.${i}.Name`)!;
    const values = listParam(form, `Filters.member.${i}.Values`);
    if (name === 'tag-key') out.push((g) => values.some((v) => v in g.tags));
    else if (name === 'tag-value') out.push((g) => Object.values(g.tags).some((v) => values.includes(v)));
    else if (name.startsWith('tag:')) out.push((g) => values.includes(g.tags[name.slice(4)] ?? '\u0000'));
    else throw new AwsApiError(400, 'ValidationError', `Filter name ${name} is invalid. Valid filter names are: tag-key, tag-value, tag:<key>.`);
  }
  return out;
}

function findGroup(world: SimWorld, name: string): { asg: SimAutoScalingGroup; cluster: SimCluster } {
  const asg = world.autoScalingGroups.get(name);
  const cluster = asg && world.cluster(asg.clusterName);
  if (!asg || !cluster) throw new AwsApiError(400, 'ValidationError', `AutoScalingGroup name not found - AutoScalingGroup '${name}' not found`);
  return { asg, cluster };
}

function findInstance(world: SimWorld, instanceId: string) {
  for (const asg of world.autoScalingGroups.values()) {
    const instance = asg.instances.get(instanceId);
    if (instance) return { asg, cluster: world.cluster(asg.clusterName)!, instance };
  }
  throw new AwsApiError(400, 'ValidationError', `Instance Id not found - No managed instance found for instance ID: ${instanceId}`);
}

function launchTemplateXml(asg: SimAutoScalingGroup, version = asg.launchTemplate.version): string {
  return `<LaunchTemplate>${tag('LaunchTemplateId', asg.launchTemplate.id)}${tag('LaunchTemplateName', asg.launchTemplate.name)}${tag('Version', version)}</LaunchTemplate>`;
}

function groupXml(world: SimWorld, asg: SimAutoScalingGroup): string {
  const zones = [...new Set(asg.subnets.map((id) => world.subnets.get(id)?.zone).filter((z): z is string => Boolean(z)))];
  const instances = [...asg.instances.values()].filter((i) => i.lifecycleState !== 'Terminated').map((i) =>
    [tag('InstanceId', i.instanceId), tag('InstanceType', i.instanceType), tag('AvailabilityZone', i.zone), tag('LifecycleState', i.lifecycleState), tag('HealthStatus', 'Healthy'), launchTemplateXml(asg, i.launchTemplateVersion), tag('ProtectedFromScaleIn', i.protectedFromScaleIn)].join(''),
  );
  const tags = Object.entries(asg.tags).map(([key, value]) => [tag('ResourceId', asg.name), tag('ResourceType', 'auto-scaling-group'), tag('Key', key), tag('Value', value), tag('PropagateAtLaunch', true)].join(''));
  return [
    tag('AutoScalingGroupName', asg.name),
    tag('AutoScalingGroupARN', asg.arn),
    launchTemplateXml(asg),
    tag('MinSize', asg.minSize),
    tag('MaxSize', asg.maxSize),
    tag('DesiredCapacity', asg.desiredCapacity),
    tag('DefaultCooldown', 300),
    `<AvailabilityZones>${members(zones.map(xmlEscape))}</AvailabilityZones>`,
    '<LoadBalancerNames/><TargetGroupARNs/>',
    tag('HealthCheckType', 'EC2'),
    tag('HealthCheckGracePeriod', 300),
    `<Instances>${members(instances)}</Instances>`,
    tag('CreatedTime', iso(asg.createdAt)),
    '<SuspendedProcesses/><EnabledMetrics/>',
    tag('VPCZoneIdentifier', asg.subnets.join(',')),
    `<Tags>${members(tags)}</Tags>`,
    `<TerminationPolicies>${members(['Default'])}</TerminationPolicies>`,
    tag('NewInstancesProtectedFromScaleIn', asg.newInstancesProtectedFromScaleIn),
    tag('ServiceLinkedRoleARN', `arn:aws:iam::${world.accountId}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling`),
  ].join('');
}

function refreshXml(asg: SimAutoScalingGroup, r: SimInstanceRefresh): string {
  return [
    tag('InstanceRefreshId', r.id),
    tag('AutoScalingGroupName', asg.name),
    tag('Status', r.status),
    tag('StatusReason', r.statusReason),
    tag('StartTime', iso(r.startedAt)),
    tag('EndTime', iso(r.endedAt)),
    tag('PercentageComplete', percentageOf(r)),
    tag('InstancesToUpdate', Math.max(0, r.total - r.replaced)),
    `<Preferences>${tag('MinHealthyPercentage', r.minHealthyPercentage)}${tag('InstanceWarmup', r.instanceWarmup)}${tag('SkipMatching', false)}${tag('ScaleInProtectedInstances', 'Wait')}</Preferences>`,
  ].join('');
}

function activityXml(asg: SimAutoScalingGroup, a: SimAutoScalingGroup['activities'][number]): string {
  return [tag('ActivityId', a.id), tag('AutoScalingGroupName', asg.name), tag('Description', a.description), tag('Cause', a.cause), tag('StartTime', iso(a.startedAt)), tag('EndTime', iso(a.endedAt)), tag('StatusCode', a.status), tag('Progress', a.status === 'Successful' ? 100 : 50)].join('');
}

export interface AutoScalingResult {
  xml: string;
  mutation?: { operation: string; target: string; cluster?: string };
}

function numberParam(form: URLSearchParams, name: string): number | undefined {
  const raw = form.get(name);
  if (raw === null) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new AwsApiError(400, 'ValidationError', `Value '${raw}' at '${name}' failed to satisfy constraint: Member must be a non-negative integer`);
  return n;
}

function updateGroup(world: SimWorld, form: URLSearchParams): SimAutoScalingGroup {
  const { asg, cluster } = findGroup(world, required(form, 'AutoScalingGroupName'));
  const min = numberParam(form, 'MinSize') ?? asg.minSize;
  const max = numberParam(form, 'MaxSize') ?? asg.maxSize;
  const desired = numberParam(form, 'DesiredCapacity') ?? asg.desiredCapacity;
  if (desired < min || desired > max) throw new AwsApiError(400, 'ValidationError', `Desired capacity:${desired} must be between the specified min size:${min} and max size:${max}`);
  const ltId = form.get('LaunchTemplate.LaunchTemplateId');
  const ltName = form.get('LaunchTemplate.LaunchTemplateName');
  if (ltId || ltName) {
    const lt = [...world.launchTemplates.values()].find((t) => t.id === ltId || t.name === ltName);
    if (!lt) throw new AwsApiError(400, 'ValidationError', `You must use a valid fully-formed launch template. The specified launch template, with template ${ltId ? `ID ${ltId}` : `name ${ltName}`}, does not exist.`);
    const version = form.get('LaunchTemplate.Version') ?? '$Default';
    if (!lt.versions.has(resolveVersion(lt, version))) {
      throw new AwsApiError(400, 'ValidationError', `You must use a valid fully-formed launch template. The specified launch template version ${version} of ${lt.id} does not exist.`);
    }
    asg.launchTemplate = { id: lt.id, name: lt.name, version };
  }
  Object.assign(asg, { minSize: min, maxSize: max, desiredCapacity: desired });
  reconcileCapacity(world, cluster, asg);
  return asg;
}

export function handleAutoScaling(world: SimWorld, form: URLSearchParams, requestId: string): AutoScalingResult {
  const action = form.get('Action') ?? '';
  const respond = (inner: string | undefined) =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${XMLNS}">${inner === undefined ? '' : `<${action}Result>${inner}</${action}Result>`}<ResponseMetadata>${tag('RequestId', requestId)}</ResponseMetadata></${action}Response>`;
  switch (action) {
    case 'DescribeAutoScalingGroups': {
      const names = listParam(form, 'AutoScalingGroupNames');
      const groups = [...world.autoScalingGroups.values()].filter((g) => (names.length === 0 || names.includes(g.name)) && groupFilters(form).every((f) => f(g)));
      // MaxRecords 1–100, default 50 (DescribeAutoScalingGroups); groups come in no documented order.
      const { page, nextToken } = servePage(groups, { limit: form.get('MaxRecords'), token: form.get('NextToken') }, { min: 1, max: 100, default: 50 }, world.strictness, asgPageErrors);
      return { xml: respond(`<AutoScalingGroups>${members(page.map((g) => groupXml(world, g)))}</AutoScalingGroups>${nextToken ? tag('NextToken', nextToken) : ''}`) };
    }
    case 'DescribeAutoScalingInstances': {
      const ids = listParam(form, 'InstanceIds');
      const rows = [...world.autoScalingGroups.values()].flatMap((asg) =>
        [...asg.instances.values()].filter((i) => ids.length === 0 || ids.includes(i.instanceId)).map((i) =>
          [tag('InstanceId', i.instanceId), tag('InstanceType', i.instanceType), tag('AutoScalingGroupName', asg.name), tag('AvailabilityZone', i.zone), tag('LifecycleState', i.lifecycleState), tag('HealthStatus', 'HEALTHY'), launchTemplateXml(asg, i.launchTemplateVersion), tag('ProtectedFromScaleIn', i.protectedFromScaleIn)].join(''),
        ),
      );
      return { xml: respond(`<AutoScalingInstances>${members(rows)}</AutoScalingInstances>`) };
    }
    case 'UpdateAutoScalingGroup': {
      const asg = updateGroup(world, form);
      return { xml: respond(undefined), mutation: { operation: action, target: `${asg.name} ${asg.launchTemplate.id}:${asg.launchTemplate.version}`, cluster: asg.clusterName } };
    }
    case 'TerminateInstanceInAutoScalingGroup': {
      const { asg, cluster, instance } = findInstance(world, required(form, 'InstanceId'));
      const decrementRaw = required(form, 'ShouldDecrementDesiredCapacity');
      if (instance.lifecycleState !== 'InService' && instance.lifecycleState !== 'Pending') {
        throw new AwsApiError(400, 'ScalingActivityInProgress', `Instance ${instance.instanceId} is already ${instance.lifecycleState}.`);
      }
      if (decrementRaw === 'true') {
        if (asg.desiredCapacity - 1 < asg.minSize) throw new AwsApiError(400, 'ValidationError', `Currently, desiredSize equals minSize (${asg.minSize}). Terminating instance without replacement will violate group's min size constraint. Either set shouldDecrementDesiredCapacity flag to false or lower group's min size.`);
        asg.desiredCapacity -= 1;
      }
      beginTermination(world, cluster, asg, instance, `At ${new Date(world.clock.now()).toISOString()} instance ${instance.instanceId} was taken out of service in response to a user request${decrementRaw === 'true' ? ', shrinking the capacity from ' + (asg.desiredCapacity + 1) + ' to ' + asg.desiredCapacity : ''}.`);
      const activity = asg.activities[asg.activities.length - 1];
      return { xml: respond(`<Activity>${activityXml(asg, activity)}</Activity>`), mutation: { operation: action, target: `${asg.name} ${instance.instanceId}`, cluster: asg.clusterName } };
    }
    case 'SetInstanceProtection': {
      const { asg } = findGroup(world, required(form, 'AutoScalingGroupName'));
      const protect = required(form, 'ProtectedFromScaleIn') === 'true';
      for (const id of listParam(form, 'InstanceIds')) {
        const instance = asg.instances.get(id);
        if (!instance) throw new AwsApiError(400, 'ValidationError', `The instance ${id} is not part of Auto Scaling group ${asg.name}.`);
        instance.protectedFromScaleIn = protect;
      }
      return { xml: respond(''), mutation: { operation: action, target: asg.name, cluster: asg.clusterName } };
    }
    case 'StartInstanceRefresh': {
      const { asg, cluster } = findGroup(world, required(form, 'AutoScalingGroupName'));
      launchTemplateOf(world, asg);
      const refresh = startInstanceRefresh(world, cluster, asg, {
        minHealthyPercentage: numberParam(form, 'Preferences.MinHealthyPercentage'),
        instanceWarmup: numberParam(form, 'Preferences.InstanceWarmup'),
        skipMatching: form.get('Preferences.SkipMatching') === 'true',
      });
      return { xml: respond(tag('InstanceRefreshId', refresh.id)), mutation: { operation: action, target: `${asg.name} ${refresh.id}`, cluster: asg.clusterName } };
    }
    case 'CancelInstanceRefresh': {
      const { asg } = findGroup(world, required(form, 'AutoScalingGroupName'));
      const refresh = cancelInstanceRefresh(asg);
      return { xml: respond(tag('InstanceRefreshId', refresh.id)), mutation: { operation: action, target: `${asg.name} ${refresh.id}`, cluster: asg.clusterName } };
    }
    case 'DescribeInstanceRefreshes': {
      const { asg } = findGroup(world, required(form, 'AutoScalingGroupName'));
      const ids = listParam(form, 'InstanceRefreshIds');
      // MaxRecords 1–100, default 50 (DescribeInstanceRefreshes); no order is documented, so none is kept.
      const refreshes = asg.refreshes.filter((r) => ids.length === 0 || ids.includes(r.id));
      const { page, nextToken } = servePage(refreshes, { limit: form.get('MaxRecords'), token: form.get('NextToken') }, { min: 1, max: 100, default: 50 }, world.strictness, asgPageErrors);
      return { xml: respond(`<InstanceRefreshes>${members(page.map((r) => refreshXml(asg, r)))}</InstanceRefreshes>${nextToken ? tag('NextToken', nextToken) : ''}`) };
    }
    case 'DescribeScalingActivities': {
      const name = form.get('AutoScalingGroupName');
      const groups = name ? [findGroup(world, name).asg] : [...world.autoScalingGroups.values()];
      const rows = groups.flatMap((asg) => [...asg.activities].reverse().map((a) => activityXml(asg, a)));
      return { xml: respond(`<Activities>${members(rows)}</Activities>`) };
    }
    case 'PutLifecycleHook': {
      const { asg } = findGroup(world, required(form, 'AutoScalingGroupName'));
      const name = required(form, 'LifecycleHookName');
      const transition = form.get('LifecycleTransition') ?? asg.lifecycleHooks.find((h) => h.name === name)?.transition;
      if (transition !== 'autoscaling:EC2_INSTANCE_TERMINATING' && transition !== 'autoscaling:EC2_INSTANCE_LAUNCHING') {
        throw new AwsApiError(400, 'ValidationError', `Invalid Lifecycle Transition: ${transition ?? 'null'}`);
      }
      const hook: SimLifecycleHook = { name, transition, heartbeatTimeout: numberParam(form, 'HeartbeatTimeout') ?? 3600, defaultResult: (form.get('DefaultResult') ?? 'ABANDON') as 'CONTINUE' | 'ABANDON' };
      asg.lifecycleHooks = [...asg.lifecycleHooks.filter((h) => h.name !== name), hook];
      return { xml: respond(''), mutation: { operation: action, target: `${asg.name} ${name}`, cluster: asg.clusterName } };
    }
    case 'DeleteLifecycleHook': {
      const { asg } = findGroup(world, required(form, 'AutoScalingGroupName'));
      const name = required(form, 'LifecycleHookName');
      if (!asg.lifecycleHooks.some((h) => h.name === name)) throw new AwsApiError(400, 'ValidationError', `No Lifecycle Hook found with name: ${name} for group: ${asg.name}`);
      asg.lifecycleHooks = asg.lifecycleHooks.filter((h) => h.name !== name);
      return { xml: respond(''), mutation: { operation: action, target: `${asg.name} ${name}`, cluster: asg.clusterName } };
    }
    case 'DescribeLifecycleHooks': {
      const { asg } = findGroup(world, required(form, 'AutoScalingGroupName'));
      const rows = asg.lifecycleHooks.map((h) => [tag('LifecycleHookName', h.name), tag('AutoScalingGroupName', asg.name), tag('LifecycleTransition', h.transition), tag('HeartbeatTimeout', h.heartbeatTimeout), tag('GlobalTimeout', h.heartbeatTimeout * 100), tag('DefaultResult', h.defaultResult)].join(''));
      return { xml: respond(`<LifecycleHooks>${members(rows)}</LifecycleHooks>`) };
    }
    case 'CompleteLifecycleAction': {
      const { asg, cluster } = findGroup(world, required(form, 'AutoScalingGroupName'));
      const hookName = required(form, 'LifecycleHookName');
      required(form, 'LifecycleActionResult');
      const instanceId = required(form, 'InstanceId');
      const instance = asg.instances.get(instanceId);
      if (!asg.lifecycleHooks.some((h) => h.name === hookName) || !instance || instance.lifecycleState !== 'Terminating:Wait') {
        throw new AwsApiError(400, 'ValidationError', `No active Lifecycle Action found with instance ID ${instanceId}`);
      }
      completeTermination(world, cluster, asg, instance);
      return { xml: respond(''), mutation: { operation: action, target: `${asg.name} ${instanceId}`, cluster: asg.clusterName } };
    }
    default:
      throw new AwsApiError(400, 'InvalidAction', `The action ${action || '(none)'} is not valid for this web service.`);
  }
}

export function autoScalingErrorXml(error: AwsApiError, requestId: string): string {
  const type = error.status >= 500 ? 'Receiver' : 'Sender';
  return `<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse xmlns="${XMLNS}"><Error>${tag('Type', type)}${tag('Code', error.type)}${tag('Message', error.message)}</Error>${tag('RequestId', requestId)}</ErrorResponse>`;
}
