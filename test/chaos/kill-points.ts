import type { KubeObject } from '../../src/ports/kube-port.js';
import { statusCard } from '../support/e2e-thread.js';
import { killOnKube, pollWorld, type KillPoint } from './kill-point.js';

/**
 * The chaos suite's kill points: where a worker may die during an upgrade. Each names its moment precisely —
 * through the worker's own kill switch (right after a call returned, right after a thread event was queued) or
 * through the simulated world (an update in flight, a node being disrupted).
 */
const OUTBOX_METHODS = ['chat.postMessage', 'chat.update', 'files.getUploadURLExternal', 'files.completeUploadExternal'];
const accepted = (operation: string) => (stack: Parameters<NonNullable<KillPoint['watch']>>[0]) => stack.sim.world.calls.some((call) => call.operation === operation);
const demo = { scenario: 'demo', cluster: 'demo', to: '1.31', speed: 300 };
const workshop = { scenario: 'workshop', cluster: 'eksworkshop-eksctl', to: '1.26', speed: 200 };
const lab = { scenario: 'karpenter-lab', cluster: 'eksworkshop-eksctl', to: '1.31' };

export const KILL_POINTS: KillPoint[] = [
  { name: 'preflight', ...demo, killAt: 'event:step-started:preflight' },
  { name: 'gate wait', ...demo, killAt: 'event:gate-opened' },
  { name: 'UpdateClusterVersion returned, id not saved', ...demo, killAt: 'call:updateClusterVersion' },
  // The job has saved that preflight ended; the thread has not been told (the burst of 7 December showed a step
  // message left "running" after a kill there).
  { name: 'step ended, its end not yet in the thread', ...demo, killAt: 'before-event:step-finished:preflight' },
  {
    name: 'control-plane wait',
    ...demo,
    watch: pollWorld((stack) => (accepted('UpdateClusterVersion')(stack) && stack.sim.world.cluster('demo')?.status === 'UPDATING' ? 'while the control plane was UPDATING' : undefined)),
  },
  { name: 'mid add-on update', ...demo, killAt: 'call:updateAddon' },
  {
    name: 'mid in-place node-group update',
    ...demo,
    watch: pollWorld((stack) => (accepted('UpdateNodegroupVersion')(stack) && stack.sim.world.cluster('demo')?.nodegroups.get('demo-ng')?.status === 'UPDATING' ? 'while demo-ng was UPDATING' : undefined)),
  },
  {
    name: 'mid blue/green drain',
    ...workshop,
    watch: pollWorld((stack) => {
      const blue = [...(stack.sim.world.cluster('eksworkshop-eksctl')?.nodegroups.values() ?? [])].find((ng) => ng.status === 'DELETING');
      return blue ? `while ${blue.name} was DELETING` : undefined;
    }),
  },
  {
    name: 'mid Karpenter drift',
    ...lab,
    watch: killOnKube('eksworkshop-eksctl', (resource, object: KubeObject) =>
      resource === 'nodes' && object.metadata.labels?.['karpenter.sh/nodepool'] && (object.spec?.taints ?? []).some((t: { key: string }) => t.key === 'karpenter.sh/disrupted')
        ? `while Karpenter was disrupting ${object.metadata.name}`
        : undefined,
    ),
  },
  { name: 'mid Fargate restart', ...workshop, killAt: 'patch:deployments' },
  { name: 'verify', ...demo, killAt: 'event:step-started:verify' },
  {
    name: 'two workers: the one holding the job dies',
    ...demo,
    standby: true,
    watch: pollWorld((stack) => (accepted('UpdateClusterVersion')(stack) && stack.sim.world.cluster('demo')?.status === 'UPDATING' ? 'while the control plane was UPDATING' : undefined)),
  },
  { name: 'timeline export', ...demo, killAt: 'upload' },
  {
    name: 'outbox holds unsent posts',
    ...demo,
    // Slack goes down once the thread is open; the worker dies after the outbox has failed to deliver twice.
    watch: (stack, kill) => {
      let down = false;
      const timer = setInterval(() => {
        if (!down && statusCard(stack.fake, 'C0OPS')) {
          down = true;
          stack.fake.setOutage({ status: 503, methods: OUTBOX_METHODS });
        }
        if (down && stack.fake.calls.filter((call) => call.status === 503).length >= 2) {
          clearInterval(timer);
          kill('while the outbox held posts Slack had refused');
        }
      }, 10);
      return () => clearInterval(timer);
    },
    beforeRestart: (stack) => stack.fake.clearOutage(),
  },
];
