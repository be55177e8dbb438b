/**
 * The CLI's work, with its outside world injected (ports, output streams, environment) so tests can run it in
 * process; src/cli/main.ts wires the real SDK adapters. Returns the exit code: 0 fine, 2 blocking findings,
 * 1 errors — each error reported as one line, never a stack.
 */

import { collectDigestRows } from '../cluster-reader/collect-digest.js';
import { renderDigestText, sortByUrgency } from '../report/digest.js';
import { ConfigError } from '../config/clusters-config.js';
import { PlanRequestError } from '../planning/planner/build-plan.js';
import { policyFromConfig } from '../planning/plan-policy.js';
import { nextMinorOf } from '../planning/upgrade-path.js';
import { readRollback, RollbackReadError } from '../cluster-reader/rollback-reads.js';
import { describeReadError } from '../cluster-reader/read-error.js';
import { withDeadline } from '../cluster-reader/bounded.js';
import { collectStatuses, DEFAULT_STATUS_CONCURRENCY } from '../cluster-reader/collect-statuses.js';
import { readGuardStatus } from '../cluster-reader/read-guard-status.js';
import { planJson, statusJson, toJsonText } from '../report/json-output.js';
import { renderPlanMarkdown } from '../report/render-plan-markdown.js';
import { renderPlanText } from '../report/render-plan-text.js';
import { renderStatusText } from '../report/render-status-text.js';
import { renderAuditText } from '../report/render-audit.js';
import { CLI_USAGE, CliUsageError, parseCliArgs, type CliCommand } from './parse-cli-args.js';
import { readPlan } from '../cluster-reader/read-and-plan.js';
import { readWaiversForPlan, type WaiversForPlan } from '../waivers/store/read-waivers.js';
import { loadCliConfig, regionFor, resolveNamedTarget, type CliTarget } from './resolve-targets.js';
import { EXIT, type CliDeps } from './cli-deps.js';

export { EXIT, type CliDeps };

export async function runCli(argv: string[], deps: CliDeps): Promise<number> {
  let command: CliCommand;
  try {
    command = parseCliArgs(argv);
  } catch (error) {
    deps.stderr(`eks-upgrade: ${(error as Error).message}\n${CLI_USAGE}\n`);
    return EXIT.error;
  }
  if (command.command === 'help') {
    deps.stdout(`${CLI_USAGE}\n`);
    return EXIT.ok;
  }
  try {
    if (command.command === 'audit') return await audit(command, deps);
    if (command.command === 'digest') return await digest(command, deps);
    // The twin and the rehearsal bring the upgrade engine, BullMQ and the simulator: loaded only for them, so that
    // `status` and `plan` start without initialising any of it (bench P0, P2).
    if (command.command === 'snapshot') return await (await import('./twin-commands.js')).snapshot(command, deps);
    if (command.command === 'rehearse') return await (await import('./twin-commands.js')).rehearseCli(command, deps);
    if (command.command === 'doctor') return await (await import('./doctor-command.js')).doctorCli(command, deps);
    return command.command === 'status' ? await status(command, deps) : await plan(command, deps);
  } catch (error) {
    const known = error instanceof Error && error.name === 'ScenarioError' || error instanceof CliUsageError || error instanceof ConfigError || error instanceof PlanRequestError;
    const message = known ? (error as Error).message : describeReadError(`eks-upgrade ${command.command}`, error);
    // A config error lists every problem, one per line; anything else is one line, never a stack.
    deps.stderr(`eks-upgrade: ${error instanceof ConfigError ? message : message.split('\n')[0]}\n`);
    return EXIT.error;
  }
}

async function status(command: CliCommand, deps: CliDeps): Promise<number> {
  const config = await loadCliConfig(command, deps.env, deps.fileExists);
  const sources = deps.sources(command.endpointUrl);
  let targets: CliTarget[];
  if (command.all) {
    if (config) {
      targets = config.clusters.map((c) => ({ name: c.name, region: c.region, roleArn: c.roleArn, config: c }));
    } else {
      const region = regionFor(command, deps.env);
      if (!region) throw new CliUsageError('status --all needs a clusters file (--clusters-file) or a region (--region / AWS_REGION) to list clusters in.');
      const names = await sources.eks({ region }).listClusters();
      targets = names.map((name) => ({ name, region }));
    }
  } else {
    targets = [resolveNamedTarget(command, config, deps.env)];
  }
  const statuses = await collectStatuses(sources, targets, { timeoutMs: command.timeoutSeconds * 1000, concurrency: statusConcurrencyOf(deps.env) });
  // One cluster of the clusters file with guards: their last evaluations by the bot's jobs and soaks (Redis), never a read of the guards.
  const guarded = !command.all ? targets[0].config : undefined;
  if (guarded?.guards?.length && !statuses[0].error) {
    const connection = await deps.guardEvaluations?.(deps.env);
    try {
      const guards = await readGuardStatus(guarded, connection?.store, `The bot's Redis (${deps.env.REDIS_URL ?? 'redis://127.0.0.1:6379'}) did not answer, so the guards' last evaluations cannot be shown; set REDIS_URL (and QUEUE_PREFIX) to the bot's Redis.`);
      if (guards) statuses[0].guards = guards;
    } finally {
      await connection?.close();
    }
  }
  if (command.output === 'json') deps.stdout(toJsonText(statusJson(statuses, sources.clock.now())));
  else deps.stdout(renderStatusText(statuses, { table: command.all }));
  if (command.output === 'markdown') deps.stderr('eks-upgrade: status has no markdown form; printed text.\n');
  const failed = statuses.filter((s) => s.error);
  if (failed.length > 0 && command.output !== 'text') deps.stderr(`eks-upgrade: ${failed.length} cluster(s) could not be read: ${failed.map((s) => s.name).join(', ')}\n`);
  return failed.length > 0 ? EXIT.error : EXIT.ok;
}

async function slackWaivers(deps: CliDeps, cluster: string): Promise<WaiversForPlan> {
  const connection = await deps.waiverStore?.(deps.env);
  try {
    return await readWaiversForPlan(connection?.store, cluster);
  } finally {
    await connection?.close();
  }
}

async function plan(command: CliCommand, deps: CliDeps): Promise<number> {
  const config = await loadCliConfig(command, deps.env, deps.fileExists);
  const target = resolveNamedTarget(command, config, deps.env);
  const sources = deps.sources(command.endpointUrl);
  const described = await sources.eks(target).describeCluster(target.name).catch((error) => {
    throw new PlanRequestError(describeReadError(`DescribeCluster for ${target.name}`, error));
  });
  if (command.rollback) {
    // The rollback plan (issue 10): RBK findings; exit 2 when EKS would refuse it (readiness insights can be forced).
    const slack = await slackWaivers(deps, target.name);
    const reading = await withDeadline(
      readRollback(sources, { checks: undefined, rollbackTimeoutMinutes: undefined, ...target.config, ...target }, { policy: policyFromConfig(target.config, slack.waivers, slack.note), maxInsightsWaitMs: (command.timeoutSeconds * 1000) / 2 }),
      command.timeoutSeconds * 1000,
      `Cluster ${target.name}`,
      sources.clock,
    ).catch((error: unknown) => {
      if (error instanceof RollbackReadError) throw new PlanRequestError(error.message);
      throw error;
    });
    if (command.output === 'json') deps.stdout(toJsonText(planJson(reading.plan)));
    else if (command.output === 'markdown') deps.stdout(renderPlanMarkdown(reading.plan));
    else deps.stdout(renderPlanText(reading.plan));
    return reading.plan.blocking ? EXIT.blocking : EXIT.ok;
  }
  const current = described.version ?? '';
  const to = command.to ?? nextMinorOf(current);
  if (!to) throw new PlanRequestError(`${target.name} reports version "${current}", which is not a Kubernetes minor.`);
  const { plan: result } = await readPlan(sources, { ...target, from: current, to, waivers: () => slackWaivers(deps, target.name), timeoutMs: command.timeoutSeconds * 1000 });
  if (command.output === 'json') deps.stdout(toJsonText(planJson(result)));
  else if (command.output === 'markdown') deps.stdout(renderPlanMarkdown(result));
  else deps.stdout(renderPlanText(result));
  return result.blocking ? EXIT.blocking : EXIT.ok;
}

async function audit(command: CliCommand, deps: CliDeps): Promise<number> {
  if (!deps.auditLog) throw new CliUsageError('audit needs Redis: this build of the CLI has no audit reader.');
  const { audit: log, close } = await deps.auditLog(deps.env);
  try {
    const entries = await log.read(command.cluster!, { limit: command.limit }).catch((error: Error) => {
      throw new CliUsageError(auditReadProblem(deps.env.REDIS_URL ?? 'redis://127.0.0.1:6379', error));
    });
    deps.stdout(command.output === 'json' ? toJsonText({ cluster: command.cluster, entries }) : renderAuditText(command.cluster!, entries));
    return EXIT.ok;
  } finally {
    await close();
  }
}

/** Why the audit trail could not be read, as a sentence: ioredis's own wording ("max retries per request") is not one. */
function auditReadProblem(url: string, error: Error): string {
  // A password in the URL never reaches the terminal.
  const shown = url.replace(/\/\/[^@/]*@/, '//***@');
  const unreachable = error.name === 'MaxRetriesPerRequestError' || /ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|Connection is closed|max retries/i.test(error.message);
  if (unreachable) return `could not read the audit trail: Redis at ${shown} is not answering. Start Redis, or set REDIS_URL (and QUEUE_PREFIX) to the bot's Redis.`;
  return `could not read the audit trail from Redis at ${shown}: ${error.message.split('\n')[0]}. Set REDIS_URL (and QUEUE_PREFIX) to the bot's Redis.`;
}

async function digest(command: CliCommand, deps: CliDeps): Promise<number> {
  const config = await loadCliConfig(command, deps.env, deps.fileExists);
  if (!config) throw new CliUsageError('digest needs a clusters file (--clusters-file, CLUSTERS_FILE or ./clusters.yaml).');
  const sources = deps.sources(command.endpointUrl);
  const at = sources.clock.now();
  const rows = await collectDigestRows(sources, config.clusters, { timeoutMs: command.timeoutSeconds * 1000 });
  if (command.output === 'json') deps.stdout(toJsonText({ generatedAt: new Date(at).toISOString(), clusters: sortByUrgency(rows) }));
  else deps.stdout(`${renderDigestText(rows, at)}\n`);
  return rows.some((row) => row.error) ? EXIT.error : EXIT.ok;
}

/** STATUS_CONCURRENCY as the bot reads it (env-config.ts): clusters of one account and Region `status --all` reads at once. */
function statusConcurrencyOf(env: NodeJS.ProcessEnv): number {
  const raw = env.STATUS_CONCURRENCY;
  if (raw === undefined || raw === '') return DEFAULT_STATUS_CONCURRENCY;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 1000) throw new CliUsageError(`STATUS_CONCURRENCY must be a whole number of clusters from 1 to 1000, got "${raw}"; unset it for the default (${DEFAULT_STATUS_CONCURRENCY}).`);
  return value;
}
