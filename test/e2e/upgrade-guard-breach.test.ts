import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerGate, blocksJson, openGates, repliesOf, statusCard, type OpenGate } from '../support/e2e-thread.js';
import { startPrometheus } from '../support/prometheus-server.js';
import type { LocalDaemon } from '../support/local-daemon.js';
import { simControl } from '../support/start-sim.js';
import { until } from '../support/until.js';
import { guardScenario, TRAINER_AVAILABILITY } from '../support/guard-scenario.js';

/**
 * Issue 29 end to end, through Slack: the bot replaces a self-managed group node by node; a real Prometheus scrapes
 * the simulator's kube-state-metrics; a guard watches the trainer Deployment's availability. The trainer breaks on
 * the new kubelet version, the guard breaches, and the bot stops disrupting: the simulator counts no termination
 * after the breach card was posted, and the card in the thread says which guard, against what, and who may resume.
 */
const CLUSTER = 'batch';
const CHANNEL = 'C0OPS';
const NODES = 5;

let stack: E2eStack;
let prometheus: LocalDaemon;
let dir: string;
let breach: OpenGate;
let terminatedAtBreach: number;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The guards' scenario (test/support/guard-scenario.ts) as a file, since the stack takes a scenario path. */
function scenarioFile(): string {
  const world = guardScenario(NODES);
  dir = mkdtempSync(join(tmpdir(), 'guard-e2e-'));
  const path = join(dir, 'scenario.yaml');
  writeFileSync(path, toYaml(world));
  return path;
}

const terminations = async () => (await stack.acceptedCalls('TerminateInstanceInAutoScalingGroup')).length;

beforeAll(async () => {
  const simPort = await freePort();
  prometheus = await startPrometheus({ scrapeTargets: [`127.0.0.1:${simPort}`], metricsPath: '/_sim/metrics' });
  stack = await startE2eStack({
    scenario: scenarioFile(),
    simPort,
    speed: 30,
    clusters: [{
      name: CLUSTER, region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false },
      guards: [{
        name: 'trainer available',
        prometheus: { url: prometheus.url, query: TRAINER_AVAILABILITY, breachWhen: '< 1', for: '2s' },
        interval: '1s',
      }],
    }],
  });
  await simControl(stack.sim, 'POST', 'workloads/fail', { namespace: 'batch', name: 'trainer', onVersion: '1.31' });
  await until(async () => ((await fetch(`${prometheus.url}/api/v1/query?query=kube_deployment_spec_replicas`).then((r) => r.json())) as { data: { result: unknown[] } }).data.result.length > 0, 'Prometheus to scrape the simulator');

  expect((await stack.fake.sendSlashCommand({ text: `start ${CLUSTER} --to 1.31`, userId: 'U0REQ', channelId: CHANNEL })).status).toBe(200);
  const answered = new Set<string>();
  breach = await until(async () => {
    for (const gate of openGates(stack.fake, CHANNEL)) {
      if (gate.gateId.startsWith('guard-')) return gate;
      const key = `${gate.gateId}:${gate.revision}`;
      if (answered.has(key)) continue;
      answered.add(key);
      await answerGate(stack.fake, CHANNEL, gate, { action: 'continue' }, 'U0APP');
    }
    return undefined;
  }, 'the breach card', 200_000);
  terminatedAtBreach = await terminations();
}, 300_000);

afterAll(async () => {
  if (process.env.E2E_PRINT) console.log(stack?.fake.renderConversation({ showTimes: true }));
  await stack?.close();
  await prometheus?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a Prometheus guard on a workload that breaks on the new version', () => {
  it('posts the breach card: the guard, its query, the value against the threshold, the step, the approvers and the buttons', () => {
    const card = blocksJson(breach.message);
    expect(breach.message.text).toContain('Guard "trainer available" stopped the upgrade of batch');
    expect(card).toMatch(/breached since \d\d:\d\d:\d\d UTC, 0\.\d+ \(breached when &lt; 1\)/);
    expect(card).toContain('watches min(kube_deployment_status_replicas_available');
    expect(card).toContain('The bot stopped at step \\"self-managed node groups to 1.31\\"');
    expect(card).toContain('<@U0APP>');
    expect(breach.labels).toEqual(['Continue', 'Force', 'Abort']);
  });

  it('stops replacing nodes: no termination after the breach, while the guard is still evaluated', async () => {
    expect(terminatedAtBreach).toBeLessThan(NODES);
    await until(() => /Paused/.test(statusCard(stack.fake, CHANNEL)?.text ?? ''), 'the status card to say Paused');
    // Continue is refused while the guard is breached: the refusal is a fresh evaluation, after the card.
    await answerGate(stack.fake, CHANNEL, breach, { action: 'continue' }, 'U0APP');
    await until(() => repliesOf(stack.fake, CHANNEL).some((reply) => reply.text.includes('Continue by <@U0APP> refused: guard "trainer available" still halts')), 'the refusal in the thread', 60_000);
    await until(() => openGates(stack.fake, CHANNEL).find((gate) => gate.gateId === breach.gateId && gate.revision === breach.revision + 1), 'the breach card asked again', 60_000);
    expect(await terminations()).toBe(terminatedAtBreach);
    expect(stack.deniedCalls()).toEqual([]);
  });
});
