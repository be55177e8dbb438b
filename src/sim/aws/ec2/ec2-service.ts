import { servePage } from '../list-pages.js';
/**
 * EC2's query protocol (form-encoded `Action=…`, XML answers in the 2016-11-15 namespace), for the calls the
 * product and a node group upgrade need: DescribeSubnets (free IPs per subnet), launch templates and their versions
 * (DescribeLaunchTemplates, DescribeLaunchTemplateVersions, CreateLaunchTemplateVersion, ModifyLaunchTemplate for
 * the default version) so a new AMI can be rolled out, and DescribeInstances for self-managed groups' instances.
 */

import { AwsApiError } from '../aws-error.js';
import { availableIps } from '../node-factory.js';
import { describeInstances } from './ec2-instances.js';
import type { SimLaunchTemplate, SimSubnet, SimWorld } from '../world-types.js';

const XMLNS = 'http://ec2.amazonaws.com/doc/2016-11-15/';

export function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function tag(name: string, value: string | number | boolean): string {
  return `<${name}>${xmlEscape(String(value))}</${name}>`;
}

/** Numbered list parameters of the query protocol: SubnetId.1, SubnetId.2, … */
function listParam(form: URLSearchParams, prefix: string): string[] {
  const values: string[] = [];
  for (let i = 1; form.has(`${prefix}.${i}`); i++) values.push(form.get(`${prefix}.${i}`)!);
  return values;
}

function filters(form: URLSearchParams): Array<{ name: string; values: string[] }> {
  const out: Array<{ name: string; values: string[] }> = [];
  for (let i = 1; form.has(`Filter.${i}.Name`); i++) out.push({ name: form.get(`Filter.${i}.Name`)!, values: listParam(form, `Filter.${i}.Value`) });
  return out;
}

function subnetMatches(subnet: SimSubnet, filter: { name: string; values: string[] }): boolean {
  const field: Record<string, string> = { 'vpc-id': subnet.vpcId, 'availability-zone': subnet.zone, 'subnet-id': subnet.id, 'cidr-block': subnet.cidr, state: 'available' };
  return field[filter.name] === undefined || filter.values.includes(field[filter.name]);
}

function azId(zone: string): string {
  const region = zone.slice(0, -1);
  const short = region.replace(/^(\w\w)-(\w)\w*-(\d)$/, '$1$2$3');
  return `${short}-az${'abcdef'.indexOf(zone.slice(-1)) + 1}`;
}

function describeSubnets(world: SimWorld, form: URLSearchParams, region: string | undefined, requestId: string): string {
  const ids = listParam(form, 'SubnetId');
  // "You cannot specify this parameter and the subnet IDs parameter in the same call" (DescribeSubnets MaxResults).
  if (ids.length && form.get('MaxResults')) throw new AwsApiError(400, 'InvalidParameterCombination', 'The parameter SubnetIds cannot be used with the parameter MaxResults');
  const inRegion = [...world.subnets.values()].filter((s) => !region || s.region === region);
  for (const id of ids) {
    if (!inRegion.some((s) => s.id === id)) throw new AwsApiError(400, 'InvalidSubnetID.NotFound', `The subnet ID '${id}' does not exist`);
  }
  const matching = inRegion.filter((s) => !ids.length || ids.includes(s.id)).filter((s) => filters(form).every((f) => subnetMatches(s, f)));
  // Named subnets come back all at once, in no order; the rest in pages of MaxResults 5–1000.
  const { page: subnets, nextToken } = ids.length
    ? servePage(matching, {}, { min: 1, max: matching.length || 1, default: matching.length || 1 }, { ...world.strictness, defaultPageSize: undefined }, ec2PageErrors)
    : servePage(matching, { limit: form.get('MaxResults'), token: form.get('NextToken') }, { min: 5, max: 1000, default: 1000 }, world.strictness, ec2PageErrors);
  const items = subnets
    .map((s) =>
      [
        '<item>',
        tag('subnetId', s.id),
        tag('subnetArn', `arn:aws:ec2:${s.region}:${world.accountId}:subnet/${s.id}`),
        tag('state', 'available'),
        tag('ownerId', world.accountId),
        tag('vpcId', s.vpcId),
        tag('cidrBlock', s.cidr),
        tag('availableIpAddressCount', availableIps(s)),
        tag('availabilityZone', s.zone),
        tag('availabilityZoneId', azId(s.zone)),
        tag('defaultForAz', false),
        tag('mapPublicIpOnLaunch', false),
        '<ipv6CidrBlockAssociationSet/>',
        `<tagSet><item>${tag('key', 'Name')}${tag('value', `private-${s.zone}`)}</item></tagSet>`,
        '</item>',
      ].join(''),
    )
    .join('');
  return `<DescribeSubnetsResponse xmlns="${XMLNS}">${tag('requestId', requestId)}<subnetSet>${items}</subnetSet>${nextToken ? tag('nextToken', nextToken) : ''}</DescribeSubnetsResponse>`;
}

const ec2PageErrors = {
  badLimit: (limit: string) => new AwsApiError(400, 'InvalidParameterValue', `Value ( ${limit} ) for parameter maxResults is invalid. Parameter may be between 5 and 1000.`),
  badToken: () => new AwsApiError(400, 'InvalidPaginationToken', 'The pagination token is invalid.'),
};

function findLaunchTemplate(world: SimWorld, form: URLSearchParams): SimLaunchTemplate {
  const id = form.get('LaunchTemplateId');
  const name = form.get('LaunchTemplateName');
  // lt- and 17 hex digits: anything else is malformed before it can be unknown (EC2 API error codes,
  // InvalidLaunchTemplateId.Malformed vs InvalidLaunchTemplateId.NotFound).
  if (id && !/^lt-[0-9a-f]{17}$/.test(id)) {
    throw new AwsApiError(400, 'InvalidLaunchTemplateId.Malformed', `The specified launch template ID ${id} is not valid. A launch template ID must be in the form lt-xxxxxxxxxxxxxxxxx.`);
  }
  const lt = [...world.launchTemplates.values()].find((t) => (id && t.id === id) || (name && t.name === name));
  if (!lt) {
    throw id
      ? new AwsApiError(400, 'InvalidLaunchTemplateId.NotFound', `The specified launch template, with template ID ${id}, does not exist.`)
      : new AwsApiError(400, 'InvalidLaunchTemplateName.NotFoundException', `The specified launch template, with template name ${name}, does not exist.`);
  }
  return lt;
}

function versionXml(lt: SimLaunchTemplate, version: number): string {
  const entry = lt.versions.get(version)!;
  return [
    tag('launchTemplateId', lt.id),
    tag('launchTemplateName', lt.name),
    tag('versionNumber', version),
    tag('createTime', new Date(entry.createdAt).toISOString()),
    tag('defaultVersion', version === lt.defaultVersion),
    ...(entry.description ? [tag('versionDescription', entry.description)] : []),
    `<launchTemplateData>${tag('imageId', entry.imageId)}${entry.instanceType ? tag('instanceType', entry.instanceType) : ''}</launchTemplateData>`,
  ].join('');
}

function launchTemplateXml(world: SimWorld, lt: SimLaunchTemplate): string {
  const created = Math.min(...[...lt.versions.values()].map((v) => v.createdAt));
  return [
    tag('launchTemplateId', lt.id),
    tag('launchTemplateName', lt.name),
    tag('createTime', new Date(created).toISOString()),
    tag('createdBy', `arn:aws:iam::${world.accountId}:role/eks-upgrade`),
    tag('defaultVersionNumber', lt.defaultVersion),
    tag('latestVersionNumber', Math.max(...lt.versions.keys())),
  ].join('');
}

export interface Ec2Result {
  xml: string;
  mutation?: { operation: string; target: string };
}

export function handleEc2(world: SimWorld, form: URLSearchParams, region: string | undefined, requestId: string): Ec2Result {
  const action = form.get('Action') ?? '';
  const wrap = (inner: string) => `<?xml version="1.0" encoding="UTF-8"?>\n${inner}`;
  switch (action) {
    case 'DescribeSubnets':
      return { xml: wrap(describeSubnets(world, form, region, requestId)) };
    case 'DescribeLaunchTemplateVersions': {
      const lt = findLaunchTemplate(world, form);
      const wanted = listParam(form, 'LaunchTemplateVersion');
      const latest = Math.max(...lt.versions.keys());
      const versions = wanted.length
        ? wanted.map((v) => (v === '$Latest' ? latest : v === '$Default' ? lt.defaultVersion : Number(v)))
        : [...lt.versions.keys()];
      // MaxResults 1–200 (DescribeLaunchTemplateVersions); versions come in no documented order.
      const { page, nextToken } = servePage(versions.filter((v) => lt.versions.has(v)), { limit: form.get('MaxResults'), token: form.get('NextToken') }, { min: 1, max: 200, default: 200 }, world.strictness, ec2PageErrors);
      const items = page.map((v) => `<item>${versionXml(lt, v)}</item>`).join('');
      return { xml: wrap(`<DescribeLaunchTemplateVersionsResponse xmlns="${XMLNS}">${tag('requestId', requestId)}<launchTemplateVersionSet>${items}</launchTemplateVersionSet>${nextToken ? tag('nextToken', nextToken) : ''}</DescribeLaunchTemplateVersionsResponse>`) };
    }
    case 'CreateLaunchTemplateVersion': {
      const lt = findLaunchTemplate(world, form);
      const source = form.get('SourceVersion');
      if (source && !/^\d+$/.test(source) && source !== '$Latest' && source !== '$Default') {
        throw new AwsApiError(400, 'InvalidLaunchTemplateVersion.Malformed', `The launch template version ${source} is malformed.`);
      }
      const sourceNumber = source === '$Latest' ? Math.max(...lt.versions.keys()) : source && source !== '$Default' ? Number(source) : lt.defaultVersion;
      const sourceEntry = lt.versions.get(sourceNumber);
      if (source && !sourceEntry) throw new AwsApiError(400, 'InvalidLaunchTemplateId.VersionNotFound', `Could not find launch template version ${source} for launch template ${lt.id}.`);
      const imageId = form.get('LaunchTemplateData.ImageId') ?? sourceEntry?.imageId;
      if (!imageId || !/^ami-[0-9a-f]+$/.test(imageId)) throw new AwsApiError(400, 'InvalidAMIID.Malformed', `Invalid id: "${imageId}" (expecting "ami-...")`);
      const version = Math.max(...lt.versions.keys()) + 1;
      const instanceType = form.get('LaunchTemplateData.InstanceType') ?? sourceEntry?.instanceType;
      const description = form.get('VersionDescription') ?? undefined;
      lt.versions.set(version, { imageId, createdAt: world.clock.now(), ...(instanceType ? { instanceType } : {}), ...(description ? { description } : {}) });
      return {
        xml: wrap(`<CreateLaunchTemplateVersionResponse xmlns="${XMLNS}">${tag('requestId', requestId)}<launchTemplateVersion>${versionXml(lt, version)}</launchTemplateVersion></CreateLaunchTemplateVersionResponse>`),
        mutation: { operation: 'CreateLaunchTemplateVersion', target: `${lt.id}:${version}` },
      };
    }
    case 'DescribeLaunchTemplates': {
      const ids = listParam(form, 'LaunchTemplateId');
      const names = listParam(form, 'LaunchTemplateName');
      for (const id of ids) if (!world.launchTemplates.has(id)) throw new AwsApiError(400, 'InvalidLaunchTemplateId.NotFound', `At least one of the launch templates specified in the request does not exist.`);
      const templates = [...world.launchTemplates.values()].filter((t) => (!ids.length && !names.length) || ids.includes(t.id) || names.includes(t.name));
      if (names.length && templates.length < names.length) throw new AwsApiError(400, 'InvalidLaunchTemplateName.NotFoundException', 'At least one of the launch templates specified in the request does not exist.');
      const items = templates.map((t) => `<item>${launchTemplateXml(world, t)}</item>`).join('');
      return { xml: wrap(`<DescribeLaunchTemplatesResponse xmlns="${XMLNS}">${tag('requestId', requestId)}<launchTemplates>${items}</launchTemplates></DescribeLaunchTemplatesResponse>`) };
    }
    case 'ModifyLaunchTemplate': {
      const lt = findLaunchTemplate(world, form);
      const wanted = form.get('SetDefaultVersion');
      if (wanted) {
        const version = wanted === '$Latest' ? Math.max(...lt.versions.keys()) : Number(wanted);
        if (!lt.versions.has(version)) throw new AwsApiError(400, 'InvalidLaunchTemplateId.VersionNotFound', `Could not find launch template version ${wanted} for launch template ${lt.id}.`);
        lt.defaultVersion = version;
      }
      return {
        xml: wrap(`<ModifyLaunchTemplateResponse xmlns="${XMLNS}">${tag('requestId', requestId)}<launchTemplate>${launchTemplateXml(world, lt)}</launchTemplate></ModifyLaunchTemplateResponse>`),
        mutation: { operation: 'ModifyLaunchTemplate', target: `${lt.id}:default=${lt.defaultVersion}` },
      };
    }
    case 'DescribeInstances':
      return { xml: wrap(describeInstances(world, form, requestId, { listParam, filters })) };
    default:
      throw new AwsApiError(400, 'InvalidAction', `The action ${action || '(none)'} is not valid for this web service.`);
  }
}

export function ec2ErrorXml(error: AwsApiError, requestId: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error>${tag('Code', error.type)}${tag('Message', error.message)}</Error></Errors>${tag('RequestID', requestId)}</Response>`;
}
