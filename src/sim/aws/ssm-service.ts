import { servePage } from './list-pages.js';
import { resolveStrictness, type SimStrictness } from '../strictness.js';
import { amiName } from '../karpenter/ami-resolution.js';
import { AwsApiError } from './aws-error.js';
import { epochSeconds } from './eks/eks-wire.js';
import { AMI_ARCHES, amiIdFor, isAmiPublished, knownMinors, releaseVersionFor, variantsOf, type AmiArch, type AmiFamily, type AmiVariant } from './eks/version-catalog.js';

/**
 * SSM (awsJson1_1, X-Amz-Target AmazonSSM.*): the public parameters AWS publishes for EKS-optimized AMIs, for every
 * simulated minor — AL2 (x86_64, arm64, gpu; up to 1.32), AL2023 (standard, nvidia, neuron) and Bottlerocket
 * (standard, nvidia), each for x86_64 and arm64 where AWS publishes them. Paths as in eks.md, e.g.
 * /aws/service/eks/optimized-ami/1.26/amazon-linux-2/recommended/image_id. A scenario's own parameters (custom
 * AMIs a team publishes, e.g. /my/amis/1.26/image_id) are served beside them.
 */
interface PublicParameter {
  name: string;
  value: string;
  dataType: 'text' | 'aws:ec2:image';
}

function al2Variant(arch: AmiArch, variant: AmiVariant): string {
  return variant === 'nvidia' ? 'amazon-linux-2-gpu' : arch === 'arm64' ? 'amazon-linux-2-arm64' : 'amazon-linux-2';
}

function imageParameters(prefix: string, imageId: string, imageName: string, release: { key: string; value: string }): PublicParameter[] {
  return [
    { name: `${prefix}/image_id`, value: imageId, dataType: 'aws:ec2:image' },
    { name: `${prefix}/image_name`, value: imageName, dataType: 'text' },
    { name: `${prefix}/${release.key}`, value: release.value, dataType: 'text' },
  ];
}

let all: PublicParameter[] | undefined;

/** Every public parameter the simulator publishes (built once; the catalog is static). */
export function publicParameters(): PublicParameter[] {
  if (all) return all;
  const params: PublicParameter[] = [];
  for (const minor of knownMinors()) {
    for (const arch of AMI_ARCHES) {
      const families: AmiFamily[] = ['AL2', 'AL2023', 'Bottlerocket'];
      for (const family of families) {
        if (!isAmiPublished(minor, family)) continue;
        for (const variant of variantsOf(family, arch)) params.push(...familyParameters(minor, family, arch, variant));
      }
    }
  }
  all = params;
  return params;
}

function familyParameters(minor: string, family: AmiFamily, arch: AmiArch, variant: AmiVariant): PublicParameter[] {
  const id = amiIdFor(minor, family, arch, variant);
  const name = amiName(minor, family, arch).replace('-standard-', `-${variant}-`);
  const release = releaseVersionFor(minor, family);
  const base = `/aws/service/eks/optimized-ami/${minor}`;
  if (family === 'Bottlerocket') {
    const flavour = variant === 'nvidia' ? `aws-k8s-${minor}-nvidia` : `aws-k8s-${minor}`;
    return imageParameters(`/aws/service/bottlerocket/${flavour}/${arch}/latest`, id, name, { key: 'image_version', value: release });
  }
  const prefix = family === 'AL2' ? `${base}/${al2Variant(arch, variant)}/recommended` : `${base}/amazon-linux-2023/${arch}/${variant}/recommended`;
  return [
    ...imageParameters(prefix, id, name, { key: 'release_version', value: release }),
    { name: prefix, value: JSON.stringify({ schema_version: family === 'AL2' ? '2' : '3', image_id: id, image_name: name, release_version: release }), dataType: 'text' },
  ];
}

function wireParameter(p: PublicParameter, region: string): Record<string, unknown> {
  return {
    Name: p.name,
    Type: 'String',
    Value: p.value,
    Version: 1,
    LastModifiedDate: epochSeconds(Date.UTC(2025, 6, 15)),
    ARN: `arn:aws:ssm:${region}::parameter${p.name}`,
    DataType: p.dataType,
  };
}

const parameterNotFound = (name: string) => new AwsApiError(400, 'ParameterNotFound', `Parameter ${name} not found.`);

/** The public parameters plus the scenario's own (custom AMI ids by minor). */
function parametersOf(custom: ReadonlyMap<string, string>): PublicParameter[] {
  if (custom.size === 0) return publicParameters();
  return [...publicParameters(), ...[...custom].map(([name, value]) => ({ name, value, dataType: 'aws:ec2:image' as const }))];
}

export function handleSsm(target: string, body: Record<string, any>, region: string, custom: ReadonlyMap<string, string> = new Map(), strictness: SimStrictness = resolveStrictness()): unknown {
  const known = parametersOf(custom);
  const byName = new Map(known.map((p) => [p.name, p]));
  switch (target) {
    case 'AmazonSSM.GetParameter': {
      const found = byName.get(String(body.Name ?? ''));
      if (!found) throw parameterNotFound(String(body.Name));
      return { Parameter: wireParameter(found, region) };
    }
    case 'AmazonSSM.GetParameters': {
      const names: string[] = Array.isArray(body.Names) ? body.Names : [];
      return {
        Parameters: names.filter((n) => byName.has(n)).map((n) => wireParameter(byName.get(n)!, region)),
        InvalidParameters: names.filter((n) => !byName.has(n)),
      };
    }
    case 'AmazonSSM.GetParametersByPath': {
      const path = String(body.Path ?? '').replace(/\/$/, '');
      const recursive = body.Recursive === true;
      const matches = known.filter((p) => {
        if (!p.name.startsWith(`${path}/`)) return false;
        return recursive || !p.name.slice(path.length + 1).includes('/');
      });
      // MaxResults 1–10 (GetParametersByPath), in no documented order.
      const { page, nextToken: next } = servePage(matches, { limit: body.MaxResults, token: body.NextToken }, { min: 1, max: 10, default: 10 }, strictness, {
        badLimit: (limit) => new AwsApiError(400, 'ValidationException', `1 validation error detected: Value '${limit}' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 10`),
        badToken: () => new AwsApiError(400, 'InvalidNextToken', 'The specified token is not valid.'),
      });
      return { Parameters: page.map((p) => wireParameter(p, region)), ...(next ? { NextToken: next } : {}) };
    }
    default:
      throw new AwsApiError(400, 'InvalidAction', `The simulator does not implement ${target}.`);
  }
}
