/**
 * The terminal grammar: `eks-upgrade status <cluster>|--all` and `eks-upgrade plan <cluster> [--to <minor>]`, with
 * `--output text|json|markdown`, `--region`, `--clusters-file`, `--endpoint-url` and `--timeout`. Pure; a mistake
 * throws CliUsageError with one sentence and the usage.
 */

import { formatMinor, parseMinor } from '../domain/minor-version.js';

export type OutputFormat = 'text' | 'json' | 'markdown';

export interface CliCommand {
  command: 'status' | 'plan' | 'audit' | 'digest' | 'snapshot' | 'rehearse' | 'doctor' | 'help';
  cluster?: string;
  all: boolean;
  to?: string;
  output: OutputFormat;
  region?: string;
  clustersFile?: string;
  endpointUrl?: string;
  timeoutSeconds: number;
  /** audit: how many records (newest first). */
  limit: number;
  /** snapshot: the twin scenario file to write; --anonymize hashes names. */
  file?: string;
  anonymize?: boolean;
  /** rehearse: how gates are answered (default continue). */
  answers?: 'continue' | 'remedy' | 'stop';
  /** plan --rollback: the plan of rolling back one minor (issue 10). */
  rollback?: boolean;
  /** doctor --cluster: only that cluster's AWS and Kubernetes checks. */
  onlyCluster?: string;
  /** doctor --cluster-role: the ClusterRole file to hold each cluster to (default deploy/rbac/cluster-role.yaml). */
  clusterRoleFile?: string;
}

export const CLI_USAGE = `Usage:
  eks-upgrade status <cluster> | --all   [options]
  eks-upgrade plan <cluster> [--to <minor> | --rollback]   [options]
  eks-upgrade digest [--output text|json]   (every cluster of the clusters file, most urgent first)
  eks-upgrade audit <cluster> [--limit <n>] [--output text|json]   (reads REDIS_URL, QUEUE_PREFIX)
  eks-upgrade snapshot <cluster> --file <twin.yaml> [--anonymize]   (a simulator scenario of the cluster; reads only)
  eks-upgrade rehearse <cluster> [--to <minor>] [--answers continue|remedy|stop] [--output text|json]
  eks-upgrade doctor [--cluster <name>] [--cluster-role <file>] [--output text|json]   (checks every permission and setting; changes nothing)

Options:
  --output text|json|markdown   output format (default text; markdown is a change-ticket playbook)
  --region <region>             region of clusters not in the clusters file (default AWS_REGION)
  --clusters-file <path>        clusters.yaml to read (default CLUSTERS_FILE or ./clusters.yaml, if present)
  --endpoint-url <url>          AWS endpoint override (AWS_ENDPOINT_URL works too), e.g. the simulator
  --timeout <seconds>           per-cluster read deadline (default 20)
  --limit <n>                   audit records to print, newest first (default 100, at most 1000)

Exit codes: 0 fine / no blocking findings, 2 the plan has blocking findings, 1 errors.
Credentials come from the standard AWS chain (env, profile, SSO, role).`;

export class CliUsageError extends Error {
  readonly code = 'cli_usage';
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

const VALUE_FLAGS = new Set(['--to', '--output', '--region', '--clusters-file', '--endpoint-url', '--timeout', '--limit', '--file', '--answers', '--cluster', '--cluster-role']);
const ANSWERS = ['continue', 'remedy', 'stop'] as const;
const OUTPUTS: OutputFormat[] = ['text', 'json', 'markdown'];

export function parseCliArgs(argv: string[]): CliCommand {
  const result: CliCommand = { command: 'help', all: false, output: 'text', timeoutSeconds: 20, limit: 100 };
  const positionals: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { ...result, command: 'help' };
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (seen.has(flag)) throw new CliUsageError(`${flag} is given twice.`);
    seen.add(flag);
    if (flag === '--all' || flag === '--anonymize') {
      if (flag === '--all') result.all = true;
      else result.anonymize = true;
      continue;
    }
    if (flag === '--rollback') {
      result.rollback = true;
      continue;
    }
    if (!VALUE_FLAGS.has(flag)) throw new CliUsageError(`Unknown option ${flag}.`);
    const value = inline ?? argv[++i];
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('--'))) throw new CliUsageError(`${flag} needs a value.`);
    switch (flag) {
      case '--to': {
        const minor = parseMinor(value);
        if (!minor) throw new CliUsageError(`--to ${value} is not a Kubernetes minor version; give one like 1.31.`);
        result.to = formatMinor(minor);
        break;
      }
      case '--output':
        if (!OUTPUTS.includes(value as OutputFormat)) throw new CliUsageError(`--output must be one of ${OUTPUTS.join(', ')}, not ${value}.`);
        result.output = value as OutputFormat;
        break;
      case '--region':
        result.region = value;
        break;
      case '--clusters-file':
        result.clustersFile = value;
        break;
      case '--endpoint-url':
        result.endpointUrl = value;
        break;
      case '--timeout': {
        const seconds = Number(value);
        if (!Number.isFinite(seconds) || seconds <= 0) throw new CliUsageError(`--timeout must be a number of seconds, not ${value}.`);
        result.timeoutSeconds = seconds;
        break;
      }
      case '--file':
        result.file = value;
        break;
      case '--cluster':
        result.onlyCluster = value;
        break;
      case '--cluster-role':
        result.clusterRoleFile = value;
        break;
      case '--answers':
        if (!ANSWERS.includes(value as (typeof ANSWERS)[number])) throw new CliUsageError(`--answers must be one of ${ANSWERS.join(', ')}, not ${value}.`);
        result.answers = value as CliCommand['answers'];
        break;
      case '--limit': {
        const limit = Number(value);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new CliUsageError(`--limit must be a whole number from 1 to 1000, not ${value}.`);
        result.limit = limit;
        break;
      }
    }
  }
  const [command, cluster, extra] = positionals;
  if (command === undefined || command === 'help') return { ...result, command: 'help' };
  if (!['status', 'plan', 'audit', 'digest', 'snapshot', 'rehearse', 'doctor'].includes(command)) throw new CliUsageError(`${command} is not a command; use status, plan, audit, digest, snapshot, rehearse or doctor.`);
  if ((result.onlyCluster || result.clusterRoleFile) && command !== 'doctor') throw new CliUsageError('--cluster and --cluster-role apply to doctor.');
  if (command === 'doctor') {
    if (cluster !== undefined) throw new CliUsageError(`Unexpected ${cluster}: give doctor a cluster with --cluster <name>.`);
    if (result.all || result.to || result.rollback) throw new CliUsageError('doctor takes no --all, --to or --rollback.');
    if (result.output === 'markdown') throw new CliUsageError('doctor prints text or json.');
    return { ...result, command };
  }
  if (command === 'digest') {
    if (cluster !== undefined) throw new CliUsageError(`Unexpected ${cluster}: digest covers every cluster of the clusters file.`);
    if (result.all || result.to) throw new CliUsageError('digest takes no --all or --to.');
    if (result.output === 'markdown') throw new CliUsageError('digest prints text or json.');
    return { ...result, command };
  }
  if (extra !== undefined) throw new CliUsageError(`Unexpected ${extra}: ${command} takes one cluster.`);
  result.command = command as CliCommand['command'];
  result.cluster = cluster;
  if ((result.file || result.anonymize) && command !== 'snapshot') throw new CliUsageError('--file and --anonymize apply to snapshot.');
  if (result.answers && command !== 'rehearse') throw new CliUsageError('--answers applies to rehearse.');
  if (command === 'status') {
    if (cluster && result.all) throw new CliUsageError('Give either a cluster or --all, not both.');
    if (!cluster && !result.all) throw new CliUsageError('status needs a cluster or --all.');
    if (result.to) throw new CliUsageError('--to applies to plan, not status.');
    if (result.rollback) throw new CliUsageError('--rollback applies to plan, not status.');
  } else if (command === 'plan' && result.rollback && result.to) {
    throw new CliUsageError('Give either --to (an upgrade) or --rollback (one minor back), not both.');
  } else if (command === 'audit') {
    if (!cluster) throw new CliUsageError('audit needs a cluster.');
    if (result.all || result.to) throw new CliUsageError('audit takes one cluster, without --all or --to.');
    if (result.output === 'markdown') throw new CliUsageError('audit prints text or json.');
  } else if (command === 'snapshot') {
    if (!cluster) throw new CliUsageError('snapshot needs a cluster.');
    if (!result.file) throw new CliUsageError('snapshot needs --file <twin.yaml> to write the twin scenario to.');
    if (result.all || result.to) throw new CliUsageError('snapshot takes one cluster, without --all or --to.');
  } else {
    if (!cluster) throw new CliUsageError(`${command} needs a cluster.`);
    if (result.all) throw new CliUsageError(`--all applies to status, not ${command}.`);
  }
  return result;
}
