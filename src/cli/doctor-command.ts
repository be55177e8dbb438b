import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WebClient } from '@slack/web-api';
import { parseAllDocuments } from 'yaml';
import { createAwsProbePort } from '../aws/doctor-sdk-adapter.js';
import { ConfigError } from '../config/clusters-config.js';
import { CLUSTER_ROLE_FILE, type RbacRule } from '../doctor/cluster-checks.js';
import { runDoctor, type DoctorInput } from '../doctor/run-doctor.js';
import { doctorFailed, renderDoctorText } from '../report/render-doctor.js';
import { toJsonText } from '../report/json-output.js';
import { EXIT, type CliDeps } from './cli-deps.js';
import { CliUsageError, type CliCommand } from './parse-cli-args.js';
import { loadCliConfig } from './resolve-targets.js';

/**
 * `eks-upgrade doctor`: every check of run-doctor.ts with the real adapters (AWS through --endpoint-url or the
 * standard chain, Slack through SLACK_BOT_TOKEN and SLACK_API_URL, Redis through REDIS_URL). Exit 1 on any ✘.
 */
export function readClusterRoleRules(path: string): RbacRule[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliUsageError(`could not read the ClusterRole ${path} (${(error as Error).message}); give it with --cluster-role <file>.`);
  }
  const role = parseAllDocuments(text).map((d) => d.toJS() as { kind?: string; rules?: RbacRule[] } | null).find((o) => o?.kind === 'ClusterRole');
  if (!role?.rules) throw new CliUsageError(`${path} has no ClusterRole with rules.`);
  return role.rules;
}

/** The repository's ClusterRole: beside the sources (tsx) or the image's /app (the bundle sits in dist/sim/). */
function defaultClusterRoleFile(): string {
  const candidates = [CLUSTER_ROLE_FILE, fileURLToPath(new URL(`../../${CLUSTER_ROLE_FILE}`, import.meta.url))];
  return candidates.find((path) => existsSync(path)) ?? CLUSTER_ROLE_FILE;
}

export async function doctorCli(command: CliCommand, deps: CliDeps): Promise<number> {
  const env = deps.env;
  let config: DoctorInput['config'];
  const file = command.clustersFile ?? env.CLUSTERS_FILE ?? 'clusters.yaml';
  try {
    const loaded = await loadCliConfig(command, env, deps.fileExists);
    config = loaded ?? { error: `no clusters file: ${file} does not exist`, file };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    config = { error: error.message, file };
  }
  const sources = deps.sources(command.endpointUrl);
  const endpoint = command.endpointUrl;
  const token = env.SLACK_BOT_TOKEN;
  const checks = await runDoctor({
    config,
    cluster: command.onlyCluster,
    aws: deps.awsProbes?.(endpoint) ?? createAwsProbePort(endpoint ? { endpoint } : {}),
    eks: sources.eks,
    ssm: sources.ssm,
    kube: sources.kube,
    rules: readClusterRoleRules(command.clusterRoleFile ?? defaultClusterRoleFile()),
    slack: token ? { client: new WebClient(token, { ...(env.SLACK_API_URL ? { slackApiUrl: env.SLACK_API_URL } : {}), retryConfig: { retries: 0 } }), apiUrl: env.SLACK_API_URL } : undefined,
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  });
  deps.stdout(command.output === 'json' ? toJsonText(checks) : renderDoctorText(checks));
  return doctorFailed(checks) ? EXIT.error : EXIT.ok;
}
