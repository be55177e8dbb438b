import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { startE2eStack, type E2eStack } from './e2e-stack.js';
import { answerGate, openGateOf, openGates, type OpenGate } from './e2e-thread.js';
import { guardScenario, TRAINER_AVAILABILITY } from './guard-scenario.js';
import type { LocalDaemon } from './local-daemon.js';
import { startPrometheus } from './prometheus-server.js';
import { startAlertmanager } from './alertmanager-server.js';
import type { FakeMessage, PolicyDocument } from '@eks-upgrade-bot/sim';
import * as k8s from '@kubernetes/client-node';
import { simControl } from '@eks-upgrade-bot/sim/kit';
import { until } from './until.js';
import { freePort } from '../../src/demo/ensure-redis.js';

/**
 * The guards' end-to-end stage (issue 29), up to the breach card: the guards' scenario (a self-managed group the bot
 * replaces node by node), a real Prometheus scraping the simulator's kube-state-metrics, the bot and the fake Slack,
 * with a guard on the trainer Deployment's availability; the trainer fails on 1.31. It starts `start batch --to
 * 1.31` as the requester U0REQ, answers every gate before the breach with Continue as the approver U0APP, and
 * resolves with the breach card.
 */
export const GUARD_CLUSTER = 'batch';
export const GUARD_CHANNEL = 'C0OPS';

export interface GuardBreachStage {
  stack: E2eStack;
  prometheus: LocalDaemon;
  /** Started when asked for (`alertmanager: true`); Prometheus sends its rules' alerts to it. */
  alertmanager?: LocalDaemon;
  breach: OpenGate;
  /** The trainer's availability as Prometheus reads it now (undefined: no series). */
  availability(): Promise<number | undefined>;
  close(): Promise<void>;
}


export interface GuardStageOptions {
  nodes: number;
  /** The cluster's guards (default: one Prometheus guard on the trainer's availability, interval 1s, for 2s). */
  guards?: (urls: { prometheus: string; alertmanager?: string }) => unknown[];
  /** Alerting rules for Prometheus (its rule file's text). */
  rules?: string;
  alertmanager?: boolean;
  /** The simulator's IAM policy for every caller (default deploy/'s): an operator's aws CLI calls need their own. */
  iamPolicy?: PolicyDocument;
  /** Run once the stack is up, before `start` (e.g. create the alarm a CloudWatch guard watches). */
  before?: (stack: E2eStack) => Promise<void>;
  /**
   * Polled while the upgrade runs until it answers true: what makes the guard breach (default: nothing, the trainer
   * fails on 1.31 by itself).
   */
  breachWhen?: (stack: E2eStack) => Promise<boolean>;
  /** Whether the trainer fails on 1.31 (default true). */
  trainerFails?: boolean;
}

export async function startGuardBreach(options: GuardStageOptions): Promise<GuardBreachStage> {
  const dir = mkdtempSync(join(tmpdir(), 'guard-e2e-'));
  const scenario = join(dir, 'scenario.yaml');
  // The stack takes a scenario path.
  writeFileSync(scenario, toYaml(guardScenario(options.nodes)));
  const simPort = await freePort();
  const alertmanager = options.alertmanager ? await startAlertmanager() : undefined;
  const prometheus = await startPrometheus({ scrapeTargets: [`127.0.0.1:${simPort}`], metricsPath: '/_sim/metrics', rules: options.rules, alertmanagerUrl: alertmanager?.url });
  let stack: E2eStack | undefined;
  const close = async () => {
    if (process.env.E2E_PRINT) console.log(stack?.fake.renderConversation({ showTimes: true }));
    await stack?.close();
    await prometheus.stop();
    await alertmanager?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    stack = await startE2eStack({
      scenario,
      simPort,
      speed: 30,
      ...(options.iamPolicy ? { access: { iamPolicy: options.iamPolicy } } : {}),
      clusters: [{
        name: GUARD_CLUSTER, region: 'us-west-2', channels: [GUARD_CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false },
        guards: options.guards?.({ prometheus: prometheus.url, alertmanager: alertmanager?.url }) ?? [{
          name: 'trainer available',
          prometheus: { url: prometheus.url, query: TRAINER_AVAILABILITY, breachWhen: '< 1', for: '2s' },
          interval: '1s',
        }],
      }],
    });
    const started = stack;
    if (options.trainerFails !== false) await simControl(started.sim, 'POST', 'workloads/fail', { namespace: 'batch', name: 'trainer', onVersion: '1.31' });
    await options.before?.(started);
    await until(async () => ((await fetch(`${prometheus.url}/api/v1/query?query=kube_deployment_spec_replicas`).then((r) => r.json())) as { data: { result: unknown[] } }).data.result.length > 0, 'Prometheus to scrape the simulator');
    const command = await started.fake.sendSlashCommand({ text: `start ${GUARD_CLUSTER} --to 1.31`, userId: 'U0REQ', channelId: GUARD_CHANNEL });
    if (command.status !== 200) throw new Error(`start ${GUARD_CLUSTER}: the bot answered ${command.status}`);
    const answered = new Set<string>();
    let triggered = !options.breachWhen;
    const breach = await until(async () => {
      if (!triggered) triggered = await options.breachWhen!(started);
      for (const gate of openGates(started.fake, GUARD_CHANNEL)) {
        if (gate.gateId.startsWith('guard-')) return gate;
        const key = `${gate.gateId}:${gate.revision}`;
        if (answered.has(key)) continue;
        answered.add(key);
        await answerGate(started.fake, GUARD_CHANNEL, gate, { action: 'continue' }, 'U0APP');
      }
      return undefined;
    }, 'the breach card', 200_000);
    const availability = async () => {
      const answer = (await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(TRAINER_AVAILABILITY)}`).then((r) => r.json())) as { data: { result: Array<{ value: [number, string] }> } };
      const value = answer.data.result[0]?.value[1];
      return value === undefined ? undefined : Number(value);
    };
    return { stack: started, prometheus, ...(alertmanager ? { alertmanager } : {}), breach, availability, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The rollback job's parent card ("EKS rollback · batch …"). */
export function rollbackCard(stack: E2eStack): FakeMessage | undefined {
  return stack.fake.messages(GUARD_CHANNEL).find((m) => m.source === 'chat.postMessage' && /EKS rollback · /.test(m.versions[0]?.text ?? m.text));
}

/** Clicks Roll back on the breach card as `userId`; resolves with what the bot told them. */
export async function clickRollBack(stack: E2eStack, card: OpenGate, userId: string): Promise<string> {
  const seen = stack.fake.ephemerals(userId).length;
  const click = await stack.fake.clickButton({ userId, channelId: GUARD_CHANNEL, messageTs: card.message.ts, actionId: 'guard:rollback' });
  if (click.status !== 200) throw new Error(`clicking Roll back: the bot answered ${click.status} ${click.body}`);
  return (await until(() => stack.fake.ephemerals(userId).slice(seen)[0], 'the answer to the Roll back click', 120_000)).text;
}

/**
 * Answers the rollback's gates as the approver U0APP until its summary, which it resolves with, and the gates
 * answered (`<gateId>`). The control-plane gate may still show the kubelet-skew insight EKS reported before the node
 * step (its refresh is best effort): then the approver checks every node is back at 1.30 and forces past it, as a
 * person would; a node still newer fails the test.
 */
export async function answerRollbackUntilSummary(stack: E2eStack): Promise<{ summary: FakeMessage; gates: string[] }> {
  const answered = new Set<string>();
  const gates: string[] = [];
  const summary = await until(async () => {
    const replies = rollbackCard(stack)?.replies ?? [];
    for (const reply of replies) {
      const gate = openGateOf(reply);
      if (!gate || answered.has(`${gate.gateId}:${gate.revision}`)) continue;
      answered.add(`${gate.gateId}:${gate.revision}`);
      gates.push(gate.gateId);
      if (!gate.actions.includes('gate:continue')) {
        const nodes = (await stack.kubeConfig(GUARD_CLUSTER).makeApiClient(k8s.CoreV1Api).listNode()).items;
        const newer = nodes.filter((node) => !node.status?.nodeInfo?.kubeletVersion?.startsWith('v1.30.'));
        if (newer.length > 0) throw new Error(`the rollback asks to Force its control-plane gate while nodes are not back at 1.30: ${newer.map((node) => node.metadata?.name).join(', ')}`);
        await answerGate(stack.fake, GUARD_CHANNEL, gate, { action: 'force', reason: 'every node is back at 1.30; the insight predates the node step' }, 'U0APP');
        continue;
      }
      await answerGate(stack.fake, GUARD_CHANNEL, gate, { action: 'continue' }, 'U0APP');
    }
    return replies.find((reply) => /^Rollback 1\.31 → 1\.30: /u.test(reply.text));
  }, 'the rollback summary', 400_000);
  return { summary, gates };
}
