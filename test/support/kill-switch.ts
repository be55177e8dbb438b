import type { EksPortFactory } from '../../src/ports/aws/eks-port.js';
import type { KubePortFactory } from '../../src/ports/kube-port.js';
import type { ThreadPort } from '../../src/ports/slack/thread-port.js';

/**
 * Makes a worker process SIGKILL itself at an exact point of an upgrade, for the chaos suite's kill points. The
 * point comes from KILL_AT (test processes only; the product has no such switch):
 * - `call:<eksMethod>`         right after that EKS call returned, before the job could save what it learned
 *                              (e.g. call:updateClusterVersion — the update exists, its id is not yet in Redis);
 * - `patch:<resource>`         right after a Kubernetes PATCH of that resource returned (patch:deployments = a
 *                              Fargate or remedy restart, patch:nodepools = a budget change);
 * - `event:<kind>[:<step>]`    right after a thread event of that kind (and step id containing <step>) was queued;
 *                              step-started / step-finished are the step message's first and final versions;
 * - `before-event:<kind>[:<step>]`  the same, right before it is queued (e.g. before-event:step-finished:preflight —
 *                              the step has ended, the thread does not know yet);
 * - `upload`                   right after the timeline file was queued for upload.
 * The process dies the way a node dies: no cleanup, no goodbye; its BullMQ lock and outbox lease simply expire.
 */
export interface KillSwitch {
  eks(factory: EksPortFactory): EksPortFactory;
  kube(factory: KubePortFactory): KubePortFactory;
  thread(port: ThreadPort): ThreadPort;
}

export function killSwitch(killAt: string | undefined, die: () => void = () => process.kill(process.pid, 'SIGKILL')): KillSwitch {
  const [what, name = '', detail = ''] = (killAt ?? '').split(':');
  const after = <T>(result: Promise<T>): Promise<T> => result.then((value) => (die(), value));
  // Dies before the call is made; the promise never settles, as the process is gone.
  const before = <T>(): Promise<T> => (die(), new Promise<T>(() => undefined));
  const eventAt = (kind: string, step: string): 'before' | 'after' | undefined =>
    (what === 'event' || what === 'before-event') && kind === name && (!detail || step.includes(detail)) ? (what === 'event' ? 'after' : 'before') : undefined;
  return {
    eks: (factory) =>
      what !== 'call'
        ? factory
        : (cluster) => {
            const port = factory(cluster);
            return new Proxy(port, {
              get(target, property, receiver) {
                const value = Reflect.get(target, property, receiver);
                if (property !== name || typeof value !== 'function') return value;
                return (...args: unknown[]) => after(value.apply(target, args));
              },
            });
          },
    kube: (factory) =>
      what !== 'patch'
        ? factory
        : async (cluster) => {
            const port = await factory(cluster);
            return { ...port, patch: ((resource, ...rest) => (resource === name ? after(port.patch(resource, ...rest)) : port.patch(resource, ...rest))) as typeof port.patch };
          },
    thread: (port) => ({
      ...port,
      postEvent: (ref, key, event) => {
        const hit = eventAt(event.kind, 'step' in event ? event.step : '');
        const send = () => port.postEvent(ref, key, event);
        return hit === 'before' ? before<void>() : hit === 'after' ? after(send()) : send();
      },
      upsertStepMessage: (ref, key, message, dedupeKey) => {
        const kind = message.state === 'running' ? (message.progress ? 'progress' : 'step-started') : message.state === 'failed' ? 'step-failed' : 'step-finished';
        const hit = eventAt(kind, message.step);
        const send = () => port.upsertStepMessage(ref, key, message, dedupeKey);
        return hit === 'before' ? before<void>() : hit === 'after' ? after(send()) : send();
      },
      uploadMarkdown: (...args) => (what === 'upload' ? after(port.uploadMarkdown(...args)) : port.uploadMarkdown(...args)),
    }),
  };
}
