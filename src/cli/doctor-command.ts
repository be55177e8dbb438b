import { WebClient } from '@slack/web-api';
import { createAwsProbePort } from '../aws/doctor-sdk-adapter.js';
import { ConfigError } from '../config/clusters-config.js';
import { defaultClusterRoleFile, readClusterRoleRules } from '../doctor/cluster-role-file.js';
import { runDoctor, type DoctorInput } from '../doctor/run-doctor.js';
import { doctorFailed, renderDoctorText } from '../report/render-doctor.js';
import { toJsonText } from '../report/json-output.js';
import { EXIT, type CliDeps } from './cli-deps.js';
import { CliUsageError, type CliCommand } from './parse-cli-args.js';
import { loadCliConfig } from './resolve-targets.js';
import { cliRedis } from './cli-redis.js';

/**
 * `eks-upgrade doctor`: every check of run-doctor.ts with the real adapters (AWS through --endpoint-url or the
 * standard chain, Slack through SLACK_BOT_TOKEN and SLACK_API_URL, Redis through REDIS_URL). Exit 1 on any ✘.
 */
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
    // Under IRSA a cluster's roleArn is assumed straight from the pod's web identity, as the bot does.
    aws: deps.awsProbes?.(endpoint) ?? createAwsProbePort({ ...(endpoint ? { endpoint } : {}), webIdentityTokenFile: env.AWS_WEB_IDENTITY_TOKEN_FILE || undefined }),
    eks: sources.eks,
    ssm: sources.ssm,
    kube: sources.kube,
    rules: clusterRole(command.clusterRoleFile ?? defaultClusterRoleFile()),
    slack: token ? { client: new WebClient(token, { ...(env.SLACK_API_URL ? { slackApiUrl: env.SLACK_API_URL } : {}), retryConfig: { retries: 0 } }), apiUrl: env.SLACK_API_URL } : undefined,
    redisUrl: cliRedis(env).target,
  });
  deps.stdout(command.output === 'json' ? toJsonText(checks) : renderDoctorText(checks));
  return doctorFailed(checks) ? EXIT.error : EXIT.ok;
}

function clusterRole(path: string) {
  try {
    return readClusterRoleRules(path);
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
}
