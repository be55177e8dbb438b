import { describeAwsError } from '../aws/describe-aws-error.js';
import { policyLineFor, PRODUCT_ACTIONS, resourceFor, type ProductAction } from '../aws/iam-actions.js';
import type { ClusterConfig } from '../config/clusters-config.js';
import { failed, notChecked, passed, type AwsIdentity, type AwsProbePort, type DoctorCheck, type SimulationRequest } from '../ports/doctor-check.js';
import type { EksPortFactory } from '../ports/aws/eks-port.js';
import type { SsmPortFactory } from '../ports/aws/ssm-port.js';

/**
 * doctor's AWS checks: who the bot is, every cluster's roleArn assumable, every IAM action the product calls allowed
 * (by iam:SimulatePrincipalPolicy; where that is refused, by a harmless read per read action and EC2's DryRun, the
 * rest "not checked"), every cluster found in its region. Nothing here changes anything.
 */
const DENIED = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation', 'UnauthorizedException']);
const errorName = (error: unknown) => (error as { name?: string } | null)?.name ?? '';
export const isAccessDenied = (error: unknown) => DENIED.has(errorName(error));
const NO_CREDENTIALS = new Set(['CredentialsProviderError', 'ProviderError']);

export const NO_CREDENTIALS_FIX = 'run the bot with an IAM role (the IRSA annotation or a Pod Identity association, docs/deploy.md step 2), or set AWS_PROFILE or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';

/** arn:aws:sts::A:assumed-role/NAME/SESSION → arn:aws:iam::A:role/NAME (what IAM simulation takes; a role path is not in the session ARN). */
export function principalOf(arn: string): string {
  const session = /^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role\/([^/]+)\/.+$/.exec(arn);
  return session ? `arn:${session[1]}:iam::${session[2]}:role/${session[3]}` : arn;
}

export async function identityCheck(aws: AwsProbePort, region: string): Promise<{ check: DoctorCheck; identity?: AwsIdentity }> {
  try {
    const identity = await aws.callerIdentity({ region });
    return { identity, check: passed('aws', 'aws.identity', `signed in as ${identity.arn} (account ${identity.account})`) };
  } catch (error) {
    if (NO_CREDENTIALS.has(errorName(error))) return { check: failed('aws', 'aws.identity', 'no AWS credentials were found', NO_CREDENTIALS_FIX) };
    return { check: failed('aws', 'aws.identity', describeAwsError('GetCallerIdentity', error), 'check the bot\'s AWS credentials and AWS_ENDPOINT_URL, if set') };
  }
}

export async function roleChecks(aws: AwsProbePort, clusters: ClusterConfig[], identity: AwsIdentity): Promise<DoctorCheck[]> {
  return Promise.all(
    clusters.filter((c) => c.roleArn).map(async (cluster) => {
      const id = `aws.role.${cluster.name}`;
      try {
        const assumed = await aws.callerIdentity({ region: cluster.region, roleArn: cluster.roleArn });
        return passed('aws', id, `${cluster.roleArn} can be assumed (as ${assumed.arn})`);
      } catch (error) {
        return failed('aws', id, `${cluster.roleArn} cannot be assumed: ${describeAwsError('AssumeRole', error)}`,
          `let ${principalOf(identity.arn)} assume it: its trust policy must allow sts:AssumeRole for that principal, and statement AssumePerClusterRoles of deploy/iam/permissions-policy.json must cover ${cluster.roleArn}`);
      }
    }),
  );
}

function requestsFor(actions: ProductAction[], cluster: ClusterConfig, account: string): SimulationRequest[] {
  return actions.map((action) => ({
    action: action.action,
    resource: resourceFor(action, cluster, account),
    ...(action.scope === 'node-role' ? { context: { 'iam:PassedToService': 'eks.amazonaws.com' } } : {}),
  }));
}

function permissionVerdict(id: string, principal: string, missing: string[], total: number, how: string): DoctorCheck {
  if (missing.length === 0) return passed('aws', id, `all ${total} IAM actions the bot calls are allowed for ${principal} (${how})`);
  return failed('aws', id, `${principal} lacks ${missing.join(', ')}`, missing.map(policyLineFor).join('; '), missing);
}

/**
 * One permission check per principal the bot acts as: its own role for clusters without roleArn, each roleArn for
 * its clusters (sts:AssumeRole on those roles is asked of the bot's own role).
 */
export async function permissionChecks(aws: AwsProbePort, clusters: ClusterConfig[], identity: AwsIdentity, probes: ReadProbes): Promise<DoctorCheck[]> {
  const botPrincipal = principalOf(identity.arn);
  const needed = PRODUCT_ACTIONS.filter((a) => !a.optional);
  const byPrincipal = new Map<string, SimulationRequest[]>();
  const add = (principal: string, requests: SimulationRequest[]) => byPrincipal.set(principal, [...(byPrincipal.get(principal) ?? []), ...requests]);
  for (const cluster of clusters) {
    const account = cluster.roleArn ? (/::(\d{12}):/.exec(cluster.roleArn)?.[1] ?? identity.account) : identity.account;
    add(cluster.roleArn ?? botPrincipal, requestsFor(needed.filter((a) => a.scope !== 'cluster-role'), cluster, account));
    if (cluster.roleArn) add(botPrincipal, requestsFor(needed.filter((a) => a.scope === 'cluster-role'), cluster, identity.account));
  }
  const checks: DoctorCheck[] = [];
  for (const [principal, requests] of byPrincipal) {
    const id = principal === botPrincipal ? 'aws.permissions' : `aws.permissions.${principal.split('/').pop()}`;
    try {
      const decisions = await aws.simulate(principal, requests);
      const actions = [...new Set(requests.map((r) => r.action))];
      checks.push(permissionVerdict(id, principal, actions.filter((a) => decisions[a] !== 'allowed'), actions.length, 'iam:SimulatePrincipalPolicy'));
    } catch (error) {
      if (!isAccessDenied(error)) {
        checks.push(notChecked('aws', id, `IAM simulation failed: ${describeAwsError('SimulatePrincipalPolicy', error)}`));
        continue;
      }
      checks.push(...(await probeChecks(id, principal, clusters, probes)));
    }
  }
  return checks;
}

/** The harmless reads doctor makes when IAM simulation is not allowed. */
export interface ReadProbes {
  eks: EksPortFactory;
  ssm: SsmPortFactory;
  aws: AwsProbePort;
}

async function probeChecks(id: string, principal: string, clusters: ClusterConfig[], probes: ReadProbes): Promise<DoctorCheck[]> {
  const [cluster] = clusters;
  if (!cluster) return [notChecked('aws', id, 'no cluster in clusters.yaml to read from')];
  const eks = probes.eks(cluster);
  const reads: Record<string, () => Promise<unknown>> = {
    'eks:ListClusters': () => eks.listClusters(),
    'eks:DescribeClusterVersions': () => eks.describeClusterVersions(),
    'eks:DescribeCluster': () => eks.describeCluster(cluster.name),
    'eks:ListNodegroups': () => eks.listNodegroups(cluster.name),
    'eks:ListAddons': () => eks.listAddons(cluster.name),
    'eks:ListUpdates': () => eks.listUpdates(cluster.name),
    'eks:ListInsights': () => eks.listInsights(cluster.name),
    'eks:ListFargateProfiles': () => eks.listFargateProfiles(cluster.name),
    'ssm:GetParameter': () => probes.ssm(cluster).getParameter('/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id'),
    'ec2:DescribeSubnets': async () => {
      if (!(await probes.aws.dryRunDescribeSubnets(cluster))) throw Object.assign(new Error('UnauthorizedOperation'), { name: 'UnauthorizedOperation' });
    },
  };
  const missing: string[] = [];
  for (const [action, read] of Object.entries(reads)) {
    await read().catch((error: unknown) => {
      if (isAccessDenied(error)) missing.push(action);
    });
  }
  const unprobed = PRODUCT_ACTIONS.filter((a) => !a.optional && !(a.action in reads)).map((a) => a.action);
  return [
    permissionVerdict(`${id}.reads`, principal, missing, Object.keys(reads).length, 'harmless reads and EC2 DryRun, iam:SimulatePrincipalPolicy being refused'),
    notChecked('aws', `${id}.others`, `${unprobed.length} actions have no harmless probe (${unprobed.join(', ')}); allow iam:SimulatePrincipalPolicy (statement OptionalDoctorSimulatePolicy of deploy/iam/permissions-policy.json) to check them`),
  ];
}

export async function clusterFoundChecks(eks: EksPortFactory, clusters: ClusterConfig[]): Promise<Array<{ check: DoctorCheck; version?: string }>> {
  return Promise.all(
    clusters.map(async (cluster) => {
      const id = `aws.cluster.${cluster.name}`;
      try {
        const described = await eks(cluster).describeCluster(cluster.name);
        return { version: described.version, check: passed('aws', id, `${cluster.name} found in ${cluster.region} (Kubernetes ${described.version ?? '?'}, ${described.status ?? '?'})`) };
      } catch (error) {
        if (errorName(error) === 'ResourceNotFoundException') {
          return { check: failed('aws', id, `no cluster ${cluster.name} in ${cluster.region}`, `fix name or region of ${cluster.name} in clusters.yaml (aws eks list-clusters --region ${cluster.region} lists what is there)`) };
        }
        return { check: failed('aws', id, describeAwsError(`DescribeCluster for ${cluster.name}`, error), 'see the error: the bot reads every cluster with DescribeCluster first') };
      }
    }),
  );
}
