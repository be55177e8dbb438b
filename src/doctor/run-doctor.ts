import type { WebClient } from '@slack/web-api';
import type { ClustersConfig } from '../config/clusters-config.js';
import { failed, notChecked, passed, type AwsProbePort, type DoctorCheck } from '../ports/doctor-check.js';
import type { EksPortFactory } from '../ports/aws/eks-port.js';
import type { KubePortFactory } from '../ports/kube-port.js';
import type { SsmPortFactory } from '../ports/aws/ssm-port.js';
import { clusterFoundChecks, identityCheck, permissionChecks, principalOf, roleChecks } from './aws-checks.js';
import { clusterChecks, type RbacRule } from './cluster-checks.js';
import { redisChecks } from './redis-checks.js';
import { slackChecks } from './slack-checks.js';
import type { RedisTarget } from '../store/redis-connection.js';
import { guardChecks } from './guard-checks.js';
import type { GuardReader } from '../ports/guards/guard-port.js';

/**
 * `doctor`: every check, in the order an operator fixes things (config, AWS, each cluster, Slack, Redis). Never
 * calls a mutating API. Returns the checks; the caller renders them and exits 1 on any failure.
 */
export interface DoctorInput {
  /** The clusters file, or the sentence saying why it could not be read. */
  config: ClustersConfig | { error: string; file: string };
  /** --cluster: only this one (its AWS and Kubernetes checks; Slack and Redis still run). */
  cluster?: string;
  aws: AwsProbePort;
  eks: EksPortFactory;
  ssm: SsmPortFactory;
  kube: KubePortFactory;
  /** The ClusterRole the bot needs in each cluster (deploy/rbac/cluster-role.yaml). */
  rules: RbacRule[];
  /** undefined when SLACK_BOT_TOKEN is not set. */
  slack?: { client: WebClient; apiUrl?: string };
  /** REDIS_URL, or the whole target when REDIS_CLUSTER_NODES names a cluster. */
  redisUrl: string | RedisTarget;
  /** Reads the guards of clusters.yaml (issue 29); without it they are not checked. */
  guards?: GuardReader;
  now?: number;
}

export async function runDoctor(input: DoctorInput): Promise<DoctorCheck[]> {
  if ('error' in input.config) return [failed('config', 'config.clusters', input.config.error, `fix ${input.config.file}; docs/deploy.md step 6 shows a valid one`), ...(await redisChecks(input.redisUrl))];
  const all = input.config.clusters;
  const clusters = input.cluster ? all.filter((c) => c.name === input.cluster) : all;
  const checks: DoctorCheck[] = [];
  if (input.cluster && clusters.length === 0) {
    checks.push(failed('config', 'config.clusters', `${input.cluster} is not in the clusters file (${all.map((c) => c.name).join(', ')})`, `add ${input.cluster} to clusters.yaml, or name one of those`));
    return checks;
  }
  checks.push(passed('config', 'config.clusters', `clusters.yaml is valid: ${all.length} cluster(s)`));

  const { check, identity } = await identityCheck(input.aws, clusters[0]?.region ?? 'us-east-1');
  checks.push(check);
  if (identity) {
    checks.push(...(await roleChecks(input.aws, clusters, identity)));
    checks.push(...(await permissionChecks(input.aws, clusters, identity, { eks: input.eks, ssm: input.ssm, aws: input.aws })));
    const found = await clusterFoundChecks(input.eks, clusters);
    for (const [index, cluster] of clusters.entries()) {
      checks.push(found[index].check);
      if (found[index].check.ok !== true) continue;
      checks.push(...(await clusterChecks(input.kube, cluster, input.rules, cluster.roleArn ?? principalOf(identity.arn), found[index].version)));
    }
  }
  if (!input.slack) checks.push(notChecked('slack', 'slack.auth', 'SLACK_BOT_TOKEN is not set'));
  else checks.push(...(await slackChecks(input.slack.client, input.config, input.slack.apiUrl)));
  checks.push(...(await redisChecks(input.redisUrl)));
  if (input.guards) checks.push(...(await guardChecks(input.guards, clusters, input.now ?? Date.now())));
  return checks;
}
