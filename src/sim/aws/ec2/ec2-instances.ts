import { AwsApiError } from '../aws-error.js';
import { imageFacts } from './asg-instances.js';
import type { SimAsgInstance, SimAutoScalingGroup, SimWorld } from '../world-types.js';

/**
 * EC2 DescribeInstances for the instances of self-managed node groups (Auto Scaling groups): one reservation per
 * instance, with its AMI, state, private DNS name (the node name), zone, subnet and the aws:autoscaling:groupName
 * tag. Filters: instance-id, instance-state-name, tag:<key>, tag-key, image-id. Managed node groups' and Karpenter's
 * instances are not listed (the product reads those through EKS and Kubernetes).
 */
const XMLNS = 'http://ec2.amazonaws.com/doc/2016-11-15/';

const tag = (name: string, value: string | number | boolean) => `<${name}>${String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</${name}>`;

interface Row {
  asg: SimAutoScalingGroup;
  instance: SimAsgInstance;
}

const STATE: Record<SimAsgInstance['lifecycleState'], { code: number; name: string }> = {
  Pending: { code: 0, name: 'pending' },
  InService: { code: 16, name: 'running' },
  Terminating: { code: 16, name: 'running' },
  'Terminating:Wait': { code: 16, name: 'running' },
  'Terminating:Proceed': { code: 32, name: 'shutting-down' },
  Terminated: { code: 48, name: 'terminated' },
};

function field(world: SimWorld, row: Row, name: string): string[] | undefined {
  const { asg, instance } = row;
  if (name === 'instance-id') return [instance.instanceId];
  if (name === 'instance-state-name') return [STATE[instance.lifecycleState].name];
  if (name === 'image-id') return [instance.imageId];
  if (name === 'availability-zone') return [instance.zone];
  if (name === 'tag-key') return [...Object.keys(asg.tags), 'aws:autoscaling:groupName'];
  if (name.startsWith('tag:')) {
    const key = name.slice(4);
    if (key === 'aws:autoscaling:groupName') return [asg.name];
    return asg.tags[key] === undefined ? [] : [asg.tags[key]];
  }
  void world;
  return undefined;
}

function instanceXml(world: SimWorld, { asg, instance }: Row): string {
  const cluster = world.cluster(asg.clusterName);
  const node = cluster?.store.get('nodes', instance.nodeName);
  const ip = (node?.status?.addresses ?? []).find((a: { type: string }) => a.type === 'InternalIP')?.address ?? '';
  const arch = imageFacts(world, instance.imageId)?.arch ?? 'x86_64';
  const state = STATE[instance.lifecycleState];
  const tags = { ...asg.tags, 'aws:autoscaling:groupName': asg.name, 'aws:ec2launchtemplate:id': asg.launchTemplate.id, 'aws:ec2launchtemplate:version': instance.launchTemplateVersion };
  return [
    tag('instanceId', instance.instanceId),
    tag('imageId', instance.imageId),
    `<instanceState>${tag('code', state.code)}${tag('name', state.name)}</instanceState>`,
    tag('privateDnsName', instance.nodeName),
    tag('instanceType', instance.instanceType),
    tag('launchTime', new Date(instance.launchedAt).toISOString()),
    `<placement>${tag('availabilityZone', instance.zone)}${tag('tenancy', 'default')}</placement>`,
    tag('subnetId', instance.subnetId),
    tag('vpcId', cluster?.vpcId ?? ''),
    tag('privateIpAddress', ip),
    tag('architecture', arch),
    tag('rootDeviceType', 'ebs'),
    tag('hypervisor', 'xen'),
    `<tagSet>${Object.entries(tags).map(([key, value]) => `<item>${tag('key', key)}${tag('value', value)}</item>`).join('')}</tagSet>`,
  ].join('');
}

export function describeInstances(
  world: SimWorld,
  form: URLSearchParams,
  requestId: string,
  parse: { listParam(form: URLSearchParams, prefix: string): string[]; filters(form: URLSearchParams): Array<{ name: string; values: string[] }> },
): string {
  const rows: Row[] = [...world.autoScalingGroups.values()].flatMap((asg) => [...asg.instances.values()].map((instance) => ({ asg, instance })));
  const ids = parse.listParam(form, 'InstanceId');
  for (const id of ids) {
    if (!/^i-[0-9a-f]{8,17}$/.test(id)) throw new AwsApiError(400, 'InvalidInstanceID.Malformed', `Invalid id: "${id}"`);
    if (!rows.some((r) => r.instance.instanceId === id)) throw new AwsApiError(400, 'InvalidInstanceID.NotFound', `The instance ID '${id}' does not exist`);
  }
  const matching = rows
    .filter((r) => ids.length === 0 || ids.includes(r.instance.instanceId))
    .filter((r) => parse.filters(form).every((f) => {
      const values = field(world, r, f.name);
      return values === undefined || values.some((v) => f.values.includes(v));
    }));
  const reservations = matching
    .map((r) => `<item>${tag('reservationId', `r-0${r.instance.instanceId.slice(3)}`)}${tag('ownerId', world.accountId)}<groupSet/><instancesSet><item>${instanceXml(world, r)}</item></instancesSet></item>`)
    .join('');
  return `<DescribeInstancesResponse xmlns="${XMLNS}">${tag('requestId', requestId)}<reservationSet>${reservations}</reservationSet></DescribeInstancesResponse>`;
}
