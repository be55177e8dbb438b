import type { KubeObject } from '../../../kube-types/kube-object.js';
import { readBody, sendJson, sendStatus } from './http-io.js';
import { badRequest, conflict, invalid, kubeStatus, methodNotAllowed, notFound } from './kube-status.js';
import { isDryRun, type RequestContext } from './request-context.js';
import { patchDocument, readJsonBody } from './serve-write.js';
import { selectorString } from '../tables/table-printer.js';

/**
 * The scale subresource (autoscaling/v1 Scale over deployments, statefulsets, replicasets: `kubectl scale`),
 * pods/eviction (`kubectl drain`, Karpenter, the bot) and pods/binding.
 */
function scaleOf(object: KubeObject): Record<string, unknown> {
  const selector = selectorString(object.spec?.selector);
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: object.metadata.name,
      namespace: object.metadata.namespace,
      uid: object.metadata.uid,
      resourceVersion: object.metadata.resourceVersion,
      creationTimestamp: object.metadata.creationTimestamp,
    },
    spec: { replicas: object.spec?.replicas ?? 1 },
    status: { replicas: object.status?.replicas ?? 0, ...(selector !== '<none>' ? { selector } : {}) },
  };
}

export async function serveScale(ctx: RequestContext): Promise<void> {
  const { store, path, req } = ctx;
  const existing = store.get(path.type.plural, path.name!, path.namespace);
  if (!existing) {
    await readBody(req);
    return sendStatus(ctx.res, notFound(path.type, path.name!));
  }
  if (req.method === 'GET') return sendJson(ctx.res, 200, scaleOf(existing));
  let next: any;
  if (req.method === 'PUT') next = await readJsonBody(ctx);
  else if (req.method === 'PATCH') {
    next = await patchDocument(ctx, scaleOf(existing));
    if (!next) return;
  } else return sendStatus(ctx.res, methodNotAllowed(req.method ?? ''));
  const replicas = next?.spec?.replicas;
  const precondition = next?.metadata?.resourceVersion;
  if (req.method === 'PUT' && precondition && precondition !== existing.metadata.resourceVersion) {
    return sendStatus(ctx.res, conflict(path.type, path.name!));
  }
  if (!Number.isInteger(replicas) || replicas < 0) {
    return sendStatus(ctx.res, invalid(path.type, path.name!, 'spec.replicas', `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`));
  }
  if (isDryRun(ctx.query)) return sendJson(ctx.res, 200, scaleOf({ ...existing, spec: { ...existing.spec, replicas } }));
  const updated = store.mutate(path.type.plural, path.name!, path.namespace, (o) => {
    o.spec.replicas = replicas;
  })!;
  sendJson(ctx.res, 200, scaleOf(updated));
}

export async function serveEviction(ctx: RequestContext): Promise<void> {
  const { store, path } = ctx;
  if (ctx.req.method !== 'POST') return sendStatus(ctx.res, methodNotAllowed(ctx.req.method ?? ''));
  const body = ((await readJsonBody(ctx)) ?? {}) as KubeObject;
  const bodyName = body?.metadata?.name;
  if (bodyName && bodyName !== path.name) return sendStatus(ctx.res, badRequest('name in URL does not match name in Eviction object'));
  if (isDryRun(ctx.query) || (body as any)?.deleteOptions?.dryRun?.includes?.('All')) {
    const exists = store.get('pods', path.name!, path.namespace);
    return sendStatus(ctx.res, exists ? kubeStatus(201, '', '') : notFound(path.type, path.name!));
  }
  sendStatus(ctx.res, store.evictStatus(path.namespace!, path.name!));
}

export async function serveBinding(ctx: RequestContext): Promise<void> {
  const { store, path } = ctx;
  const body = ((await readJsonBody(ctx)) ?? {}) as any;
  const pod = store.get('pods', path.name!, path.namespace);
  if (!pod) return sendStatus(ctx.res, notFound(path.type, path.name!));
  if (pod.spec?.nodeName) {
    return sendStatus(ctx.res, kubeStatus(409, 'Conflict', `Operation cannot be fulfilled on pods/binding "${path.name}": pod ${path.name} is already assigned to node "${pod.spec.nodeName}"`));
  }
  const node = body?.target?.name;
  if (!node) return sendStatus(ctx.res, badRequest('binding target name is required'));
  store.mutate('pods', path.name!, path.namespace, (p) => {
    p.spec.nodeName = node;
  });
  sendStatus(ctx.res, kubeStatus(201, '', ''));
}
