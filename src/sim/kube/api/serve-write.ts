import { parse as parseYaml } from 'yaml';
import type { KubeObject } from '../../../kube-types/kube-object.js';
import { applyPatch, PatchError, patchKindOf } from '../objects/apply-patch.js';
import { cloneJson } from '../objects/deep-equal.js';
import { readBody, sendJson, sendStatus } from './http-io.js';
import { SimKubeError } from '../kube-store.js';
import { alreadyExists, badRequest, conflict, invalidCauses, kubeStatus, notFound } from './kube-status.js';
import { isDryRun, present, selectorPredicate, type RequestContext } from './request-context.js';
import { apiVersionOf, resourceType } from '../objects/resource-registry.js';
import { validationCauses } from '../objects/validate-object.js';

/**
 * POST, PUT, PATCH and DELETE on objects and their status subresource. Writes to the main resource keep the
 * stored status, writes to /status change only the status (as for every kind with a status subresource);
 * a stale metadata.resourceVersion is a 409 Conflict; dryRun=All answers without storing.
 */
export async function readJsonBody(ctx: RequestContext): Promise<unknown> {
  const text = await readBody(ctx.req);
  if (!text.trim()) return undefined;
  const contentType = String(ctx.req.headers['content-type'] ?? '');
  try {
    return contentType.includes('yaml') ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new SimKubeError(400, 'BadRequest', `the request body could not be decoded: ${(error as Error).message}`);
  }
}

function hasStatusSubresource(ctx: RequestContext): boolean {
  return ctx.path.type.subresources.some((s) => s.name === 'status');
}

export async function serveCreate(ctx: RequestContext): Promise<void> {
  const { store, path } = ctx;
  const body = (await readJsonBody(ctx)) as KubeObject | undefined;
  if (!body || typeof body !== 'object') return sendStatus(ctx.res, badRequest('the request body must be an object'));
  body.metadata ??= {} as KubeObject['metadata'];
  if (path.type.namespaced) {
    if (body.metadata.namespace && body.metadata.namespace !== path.namespace) {
      return sendStatus(ctx.res, badRequest('the namespace of the provided object does not match the namespace sent on the request'));
    }
    body.metadata.namespace = path.namespace;
    if (!store.get('namespaces', path.namespace!)) return sendStatus(ctx.res, notFound(resourceType('namespaces')!, path.namespace!));
  }
  const causes = validationCauses(path.type.plural, body, { customResources: store.validatesCustomResources });
  if (causes.length) return sendStatus(ctx.res, invalidCauses(path.type, body.metadata.name ?? '', causes));
  // As the apiserver does for kinds with a status subresource: status is the controllers' to write, not the creator's.
  if (hasStatusSubresource(ctx)) delete body.status;
  if (body.metadata.name && store.get(path.type.plural, body.metadata.name, path.namespace)) {
    return sendStatus(ctx.res, alreadyExists(path.type, body.metadata.name));
  }
  if (isDryRun(ctx.query)) return sendJson(ctx.res, 201, present(ctx, body));
  const created = store.create(path.type.plural, body);
  sendJson(ctx.res, 201, present(ctx, created));
}

/** Stores `next` as the new state of `existing` through the main resource or its status subresource. */
function commit(ctx: RequestContext, existing: KubeObject, next: KubeObject, precondition: string | undefined): void {
  const { store, path } = ctx;
  const name = path.name!;
  if (next.metadata?.name && next.metadata.name !== name) {
    return sendStatus(ctx.res, badRequest(`the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`));
  }
  if (precondition && precondition !== existing.metadata.resourceVersion) return sendStatus(ctx.res, conflict(path.type, name));
  let merged: KubeObject;
  if (path.subresource === 'status') merged = { ...existing, status: next.status };
  else {
    merged = { ...next, metadata: { ...next.metadata, name, namespace: existing.metadata.namespace } };
    if (hasStatusSubresource(ctx)) merged.status = existing.status;
  }
  const causes = validationCauses(path.type.plural, merged, { customResources: ctx.store.validatesCustomResources });
  if (causes.length) return sendStatus(ctx.res, invalidCauses(path.type, name, causes));
  if (isDryRun(ctx.query)) return sendJson(ctx.res, 200, present(ctx, merged));
  const updated = store.update(path.type.plural, merged);
  sendJson(ctx.res, 200, present(ctx, updated));
}

export async function serveUpdate(ctx: RequestContext): Promise<void> {
  const existing = ctx.store.get(ctx.path.type.plural, ctx.path.name!, ctx.path.namespace);
  const body = (await readJsonBody(ctx)) as KubeObject | undefined;
  if (!existing) return sendStatus(ctx.res, notFound(ctx.path.type, ctx.path.name!));
  if (!body || typeof body !== 'object') return sendStatus(ctx.res, badRequest('the request body must be an object'));
  body.metadata ??= {} as KubeObject['metadata'];
  commit(ctx, existing, body, body.metadata.resourceVersion);
}

/** Applies a patch body of the request's Content-Type to `document`; answers the error itself and returns undefined on failure. */
/** Karpenter's groups: the simulator's only custom resources (the rest are built into the apiserver). */
function isCustomResource(group: string): boolean {
  return group === 'karpenter.sh' || group === 'karpenter.k8s.aws';
}

export async function patchDocument(ctx: RequestContext, document: unknown): Promise<unknown> {
  const kind = patchKindOf(ctx.req.headers['content-type']);
  // Custom resources have no Go struct to merge by: "strategic merge patch is not supported for custom resources"
  // (kubernetes/kubernetes#53558); the apiserver answers 415 and lists the media types it does accept.
  if (kind === 'strategic' && isCustomResource(ctx.path.type.group)) {
    await readBody(ctx.req);
    sendStatus(ctx.res, kubeStatus(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml'));
    return undefined;
  }
  if (!kind) {
    sendStatus(ctx.res, kubeStatus(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`));
    return undefined;
  }
  const patch = await readJsonBody(ctx);
  try {
    return applyPatch(kind, cloneJson(document), patch);
  } catch (error) {
    if (!(error instanceof PatchError)) throw error;
    sendStatus(ctx.res, kubeStatus(422, 'Invalid', error.message));
    return undefined;
  }
}

export async function servePatch(ctx: RequestContext): Promise<void> {
  const existing = ctx.store.get(ctx.path.type.plural, ctx.path.name!, ctx.path.namespace);
  if (!existing) {
    await readBody(ctx.req);
    return sendStatus(ctx.res, notFound(ctx.path.type, ctx.path.name!));
  }
  const patched = (await patchDocument(ctx, existing)) as KubeObject | undefined;
  if (!patched) return;
  // A resourceVersion in the patch is a precondition; the stored one is carried along otherwise.
  const precondition = patched.metadata?.resourceVersion !== existing.metadata.resourceVersion ? patched.metadata?.resourceVersion : undefined;
  commit(ctx, existing, patched, precondition);
}

interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
}

async function deleteOptions(ctx: RequestContext): Promise<DeleteOptions> {
  const body = ((await readJsonBody(ctx)) ?? {}) as DeleteOptions;
  const grace = ctx.query.get('gracePeriodSeconds');
  if (grace !== null) body.gracePeriodSeconds = Number(grace);
  return body;
}

function deleteOne(ctx: RequestContext, object: KubeObject, options: DeleteOptions): KubeObject | undefined {
  const { store, path } = ctx;
  if (isDryRun(ctx.query)) return object;
  if (path.type.plural === 'pods') {
    return store.deleteGracefully('pods', object.metadata.name, object.metadata.namespace, options.gracePeriodSeconds);
  }
  return store.delete(path.type.plural, object.metadata.name, object.metadata.namespace);
}

export async function serveDelete(ctx: RequestContext): Promise<void> {
  const { store, path } = ctx;
  const options = await deleteOptions(ctx);
  const existing = store.get(path.type.plural, path.name!, path.namespace);
  if (!existing) return sendStatus(ctx.res, notFound(path.type, path.name!));
  const pre = options.preconditions ?? {};
  if ((pre.uid && pre.uid !== existing.metadata.uid) || (pre.resourceVersion && pre.resourceVersion !== existing.metadata.resourceVersion)) {
    return sendStatus(ctx.res, conflict(path.type, path.name!));
  }
  const result = deleteOne(ctx, existing, options) ?? existing;
  sendJson(ctx.res, 200, present(ctx, result));
}

export async function serveDeleteCollection(ctx: RequestContext): Promise<void> {
  const { store, path } = ctx;
  const options = await deleteOptions(ctx);
  const matches = selectorPredicate(ctx);
  const deleted = store
    .list(path.type.plural, path.namespace)
    .filter(matches)
    .map((object) => present(ctx, deleteOne(ctx, object, options) ?? object));
  sendJson(ctx.res, 200, {
    kind: `${path.type.kind}List`,
    apiVersion: apiVersionOf(path.type, path.version),
    metadata: { resourceVersion: store.resourceVersion() },
    items: deleted,
  });
}
