import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimKubeStoreImpl } from '../create-sim-kube-store.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, versionInfo } from './discovery.js';
import { openApiGroupVersion, openApiIndex } from './openapi-v3.js';
import { FieldSelectorParseError } from './field-selector.js';
import { sendJson, sendStatus } from './http-io.js';
import { SelectorParseError } from './label-selector.js';
import { serveLog } from '../container-logs.js';
import { SimKubeError, type SimKubeStore } from '../kube-store.js';
import { badRequest, kubeStatus, methodNotAllowed, resourceNotFound } from './kube-status.js';
import type { RequestContext } from './request-context.js';
import { parseResourcePath } from './request-path.js';
import { minorOf } from '../objects/resource-registry.js';
import { serveGet, serveList } from './serve-read.js';
import { serveBinding, serveEviction, serveScale } from './serve-subresource.js';
import { serveWatch } from './serve-watch.js';
import { serveCreate, serveDelete, serveDeleteCollection, servePatch, serveUpdate } from './serve-write.js';
import { forbiddenMessage, type KubeRequestAccess, type ResourceAttributes } from './kube-access.js';
import { serveSelfSubjectAccessReview } from './self-subject-access-review.js';

/**
 * One cluster's Kubernetes API over HTTP, mounted by the simulator server under /k8s/<cluster>. `path` is what
 * follows that prefix, query string included. `access` (see kube-access.ts) says who the bearer token is and what
 * RBAC allows them; without it every request is allowed. Every answer is JSON, errors are metav1.Status.
 */
export async function handleKubeRequest(store: SimKubeStore, req: IncomingMessage, res: ServerResponse, path: string, access?: KubeRequestAccess): Promise<void> {
  const impl = store as SimKubeStoreImpl;
  if (typeof impl.historySince !== 'function') {
    throw new Error(`handleKubeRequest: the store of cluster ${store.clusterName} was not made by createSimKubeStore; build it with createSimKubeStore()`);
  }
  try {
    if (access && !access.user) {
      req.resume();
      return sendStatus(res, kubeStatus(401, 'Unauthorized', 'Unauthorized'));
    }
    await route(impl, req, res, path, access);
  } catch (error) {
    if (res.headersSent) {
      res.end();
      return;
    }
    if (error instanceof SimKubeError) return sendStatus(res, kubeStatus(error.code, error.reason, error.message));
    if (error instanceof SelectorParseError || error instanceof FieldSelectorParseError) return sendStatus(res, badRequest(error.message));
    sendStatus(res, kubeStatus(500, 'InternalError', `Internal error occurred: ${(error as Error).message}`));
  }
}

/** The RBAC verb of a request (k8s.io/apiserver RequestInfoFactory): watch, list, get, create, update, patch, delete, deletecollection. */
function verbOf(method: string, named: boolean, watch: boolean): string {
  if (method === 'GET') return watch ? 'watch' : named ? 'get' : 'list';
  if (method === 'POST') return 'create';
  if (method === 'PUT') return 'update';
  if (method === 'PATCH') return 'patch';
  if (method === 'DELETE') return named ? 'delete' : 'deletecollection';
  return method.toLowerCase();
}

async function route(store: SimKubeStoreImpl, req: IncomingMessage, res: ServerResponse, path: string, access?: KubeRequestAccess): Promise<void> {
  const url = new URL(path || '/', 'http://sim.invalid');
  const pathname = url.pathname.replace(/\/+$/, '') || '/';
  const method = req.method ?? 'GET';
  const git = store.gitVersion;

  if (method === 'GET') {
    if (pathname === '/version') return sendJson(res, 200, versionInfo(git));
    if (pathname === '/healthz' || pathname === '/livez' || pathname === '/readyz') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      return void res.end('ok');
    }
    if (pathname === '/api') return sendJson(res, 200, apiVersions(String(req.headers.host ?? '127.0.0.1')));
    if (pathname === '/apis') return sendJson(res, 200, apiGroupList(git));
    const segments = pathname.split('/').filter(Boolean);
    if (pathname === '/openapi/v3') {
      // serverRelativeURLs must carry the mount prefix (/k8s/<cluster>) that kubectl would otherwise drop.
      const url = req.url ?? '';
      const at = url.indexOf(path);
      return sendJson(res, 200, openApiIndex(at > 0 ? url.slice(0, at) : '', git));
    }
    if (segments[0] === 'openapi' && segments[1] === 'v3') {
      const [group, version] = segments[2] === 'api' ? ['', segments[3]] : [segments[3], segments[4]];
      const doc = openApiGroupVersion(group ?? '', version ?? '', git);
      return doc ? sendJson(res, 200, doc) : sendStatus(res, resourceNotFound());
    }
    if (segments[0] === 'api' && segments.length === 2) {
      const list = apiResourceList(git, '', segments[1]);
      return list ? sendJson(res, 200, list) : sendStatus(res, resourceNotFound());
    }
    if (segments[0] === 'apis' && segments.length === 2) {
      const group = apiGroup(git, segments[1]);
      return group ? sendJson(res, 200, group) : sendStatus(res, resourceNotFound());
    }
    if (segments[0] === 'apis' && segments.length === 3) {
      const list = apiResourceList(git, segments[1], segments[2]);
      return list ? sendJson(res, 200, list) : sendStatus(res, resourceNotFound());
    }
  }

  if (method === 'POST' && pathname === '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews') {
    return serveSelfSubjectAccessReview(req, res, access);
  }

  const resourcePath = parseResourcePath(pathname, git);
  if (!resourcePath) {
    req.resume();
    return sendStatus(res, resourceNotFound());
  }
  const ctx: RequestContext = { store, req, res, path: resourcePath, query: url.searchParams, minor: minorOf(git) };
  const watch = resourcePath.watchPrefix || ['true', '1'].includes(url.searchParams.get('watch') ?? '');
  const { name, subresource } = resourcePath;
  if (access) {
    const attributes: ResourceAttributes = {
      verb: verbOf(method, name !== undefined, watch),
      group: resourcePath.group,
      resource: resourcePath.type.plural,
      subresource,
      namespace: resourcePath.namespace,
      name,
    };
    if (!access.allows(attributes)) {
      req.resume();
      access.onForbidden?.(forbiddenMessage(access.user!, attributes));
      return sendStatus(
        res,
        kubeStatus(403, 'Forbidden', forbiddenMessage(access.user!, attributes), {
          ...(name ? { name } : {}),
          ...(resourcePath.group ? { group: resourcePath.group } : {}),
          kind: resourcePath.type.plural,
        }),
      );
    }
  }

  if (subresource === 'eviction') return serveEviction(ctx);
  if (subresource === 'binding') return serveBinding(ctx);
  if (subresource === 'scale') return serveScale(ctx);
  if (subresource === 'log' && method === 'GET') return serveLog(ctx);
  if (subresource && subresource !== 'status') {
    req.resume();
    return sendStatus(res, methodNotAllowed(method));
  }

  switch (method) {
    case 'GET':
      if (watch) return serveWatch(ctx);
      return name ? serveGet(ctx) : serveList(ctx);
    case 'POST':
      if (name) break;
      return serveCreate(ctx);
    case 'PUT':
      if (!name) break;
      return serveUpdate(ctx);
    case 'PATCH':
      if (!name) break;
      return servePatch(ctx);
    case 'DELETE':
      if (subresource) break;
      return name ? serveDelete(ctx) : serveDeleteCollection(ctx);
  }
  req.resume();
  sendStatus(res, methodNotAllowed(method));
}
