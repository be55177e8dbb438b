/**
 * Container logs for `kubectl logs` (pods/{name}/log: container, tailLines, timestamps, follow). Simulated
 * components write into them, e.g. the Karpenter sim's controller lines into the karpenter deployment's pods, so
 * `kubectl -n karpenter logs deployment/karpenter -c controller -f` reads like the seed's.
 */

import type { KubeObject } from '../../kube-types/kube-object.js';
import type { SimKubeStore } from './kube-store.js';
import { badRequest, notFound } from './api/kube-status.js';
import { selectorMatches } from './api/label-selector.js';
import { sendStatus } from './api/http-io.js';
import type { RequestContext } from './api/request-context.js';
import { resourceType } from './objects/resource-registry.js';

const MAX_LINES = 2000;

interface LogStream {
  lines: Array<{ at: string; text: string }>;
  followers: Set<(at: string, text: string) => void>;
}

const logs = new WeakMap<SimKubeStore, Map<string, LogStream>>();

function streamOf(store: SimKubeStore, key: string): LogStream {
  let byKey = logs.get(store);
  if (!byKey) logs.set(store, (byKey = new Map()));
  let stream = byKey.get(key);
  if (!stream) byKey.set(key, (stream = { lines: [], followers: new Set() }));
  return stream;
}

function keyOf(pod: KubeObject, container: string): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}/${pod.metadata.uid}/${container}`;
}

/** Appends one line to a container's log (the pod must exist; the line is stamped with the sim clock). */
export function appendContainerLog(store: SimKubeStore & { clock?: { now(): number } }, namespace: string, podName: string, container: string, line: string): void {
  const pod = store.get('pods', podName, namespace);
  if (!pod) return;
  const stream = streamOf(store, keyOf(pod, container));
  const at = new Date(store.clock?.now() ?? Date.now()).toISOString();
  stream.lines.push({ at, text: line });
  if (stream.lines.length > MAX_LINES) stream.lines.shift();
  for (const follower of stream.followers) follower(at, line);
}

/** Appends a line to every running pod of a Deployment (whichever pod `kubectl logs deployment/x` picks shows it). */
export function appendDeploymentLog(store: SimKubeStore, namespace: string, deployment: string, container: string, line: string): void {
  const d = store.get('deployments', deployment, namespace);
  if (!d) return;
  for (const pod of store.list('pods', namespace)) {
    if (!pod.metadata.deletionTimestamp && pod.spec?.nodeName && selectorMatches(d.spec?.selector, pod.metadata.labels)) {
      appendContainerLog(store, namespace, pod.metadata.name, container, line);
    }
  }
}

export function serveLog(ctx: RequestContext): void {
  const { store, path, query, res } = ctx;
  const pod = store.get('pods', path.name!, path.namespace);
  if (!pod) return sendStatus(res, notFound(resourceType('pods')!, path.name!));
  const containers: string[] = (pod.spec?.containers ?? []).map((c: any) => c.name);
  const container = query.get('container') ?? (containers.length === 1 ? containers[0] : undefined);
  if (!container) {
    return sendStatus(res, badRequest(`a container name must be specified for pod ${pod.metadata.name}, choose one of: [${containers.join(' ')}]`));
  }
  if (!containers.includes(container)) {
    return sendStatus(res, badRequest(`container ${container} is not valid for pod ${pod.metadata.name}`));
  }
  const stream = streamOf(store, keyOf(pod, container));
  const stamp = query.get('timestamps') === 'true';
  const format = (at: string, text: string) => `${stamp ? `${at.replace(/\.(\d{3})Z$/, '.$1000000Z')} ` : ''}${text}\n`;
  const tail = query.get('tailLines');
  const lines = tail !== null ? stream.lines.slice(Math.max(0, stream.lines.length - Number(tail))) : stream.lines;
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
  for (const line of lines) res.write(format(line.at, line.text));
  if (query.get('follow') !== 'true') return void res.end();
  const follower = (at: string, text: string) => res.write(format(at, text));
  stream.followers.add(follower);
  const stop = () => {
    stream.followers.delete(follower);
    if (!res.writableEnded) res.end();
  };
  ctx.req.on('close', stop);
  res.on('close', stop);
}
