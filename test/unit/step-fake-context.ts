import { parseClustersConfig, type ClusterConfig } from '../../src/config/clusters-config.js';
import { createLogger } from '../../src/log/logger.js';
import type { EksPort } from '../../src/ports/aws/eks-port.js';
import type { GateRecord, GateStore } from '../../src/ports/gate-store.js';
import type { JobControls } from '../../src/ports/job-controls.js';
import type { StepContext } from '../../jobs/engine/step-context.js';
import type { StepMessageModel, TimelineEvent } from '../../src/ports/timeline-event.js';
import type { IssuedUpdate, UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import type { PlannedStep } from '../../src/ports/upgrade-plan.js';

/**
 * A StepContext for unit tests of steps: job data in memory, an in-memory gate store with the same rules as the
 * Redis one (first answer wins, revisions), a settable clock and controls, and the emitted events recorded.
 */
export function inMemoryGateStore(): GateStore & { records: Map<string, GateRecord> } {
  const records = new Map<string, GateRecord>();
  return {
    records,
    async open(gate, openedAt) {
      const current = records.get(gate.gateId);
      if (current && current.gate.revision >= gate.revision) return false;
      records.set(gate.gateId, { gate, state: 'open', openedAt });
      return true;
    },
    async read(_jobId, gateId) {
      const record = records.get(gateId);
      return record && structuredClone(record);
    },
    async answer(_jobId, gateId, revision, answer) {
      const record = records.get(gateId);
      if (!record || record.gate.revision !== revision) return { outcome: 'stale' };
      if (record.answer) return { outcome: 'already-answered', by: record.answer.by, action: record.answer.action, at: record.answer.at };
      record.state = 'answered';
      record.answer = answer;
      return { outcome: 'accepted' };
    },
  };
}

export interface FakeStepContext {
  ctx: StepContext;
  data: UpgradeJobData;
  events: Array<{ key: string; event: TimelineEvent }>;
  /** Versions of the messages kept in place (showMessage), oldest first. */
  messages: Array<{ key: string; message: StepMessageModel }>;
  /** Timeline-only events (record). */
  recorded: Array<{ key: string; event: TimelineEvent }>;
  gates: ReturnType<typeof inMemoryGateStore>;
  clock: { at: number };
  controls: JobControls;
}

export function fakeStepContext(opts: { eks?: EksPort; step?: Partial<PlannedStep>; data?: Partial<UpgradeJobData>; cluster?: Partial<ClusterConfig> } = {}): FakeStepContext {
  const events: FakeStepContext['events'] = [];
  const messages: FakeStepContext['messages'] = [];
  const recorded: FakeStepContext['recorded'] = [];
  const clock = { at: 1_000_000 };
  const controls: JobControls = { paused: false, pauseSeq: 0 };
  const gates = inMemoryGateStore();
  const data = { jobId: 'j1', cluster: 'demo', dryRun: false, hops: ['1.31'], updates: {}, stepState: {}, acted: {}, steps: [], state: 'running', ...opts.data } as UpgradeJobData;
  const step: PlannedStep = { id: 'h1-control-plane', kind: 'control-plane', hop: 1, from: '1.30', to: '1.31', title: 'control plane to 1.31', ...opts.step };
  const base = parseClustersConfig({ clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP'] }] }).clusters[0];
  const stepState = () => (data.stepState[step.id] ??= {});
  const ctx: StepContext = {
    data,
    step,
    eks: opts.eks ?? ({} as EksPort),
    clusterConfig: { ...base, ...opts.cluster },
    kube: async () => {
      throw new Error('no Kubernetes API in this unit test');
    },
    ssm: { getParameter: async () => undefined },
    ec2: { describeSubnets: async () => [], describeLaunchTemplateVersions: async () => [], createLaunchTemplateVersion: async () => 0, setDefaultLaunchTemplateVersion: async () => undefined },
    autoScaling: {} as StepContext['autoScaling'],
    clock: { now: () => clock.at, sleep: async (ms) => void (clock.at += ms) },
    logger: createLogger({ level: 'silent' }),
    pollIntervalMs: 1,
    gates,
    recordActed(acted) {
      (data.acted[step.id] ??= {})[`${acted.resource} ${acted.action}${acted.to ? ` ${acted.to}` : ''}`] = acted;
    },
    emit: async (suffix, event) => void events.push({ key: `${data.jobId}:${step.id}:${suffix}`, event }),
    emitKeyed: async (key, _log, event) => void events.push({ key, event }),
    showMessage: async (suffix, message) => void messages.push({ key: `${data.jobId}:${step.id}:${suffix}`, message }),
    record: async (suffix, event) => void recorded.push({ key: `${data.jobId}:${step.id}:${suffix}`, event }),
    setProgress: async () => undefined,
    setState: async (state) => void (data.state = state),
    stepState: <T extends Record<string, unknown>>() => stepState() as Partial<T>,
    saveStepState: async (patch) => void Object.assign(stepState(), structuredClone(patch)),
    recordUpdate: async (name: string, update: IssuedUpdate) => void ((data.updates[step.id] ??= {})[name] = update),
    recordedUpdate: (name: string) => data.updates[step.id]?.[name],
    controls: async () => structuredClone(controls),
    sleep: async (ms) => void (clock.at += ms),
  };
  return { ctx, data, events, messages, recorded, gates, clock, controls };
}
