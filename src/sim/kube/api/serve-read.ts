import { notFound, badRequest, expired } from './kube-status.js';
import { sendJson, sendStatus } from './http-io.js';
import { renderTable, wantsTable, type IncludeObject } from '../tables/render-table.js';
import { present, selectorPredicate, type RequestContext } from './request-context.js';
import { apiVersionOf } from '../objects/resource-registry.js';

/**
 * GET of one object or a collection, as JSON or as a Table (kubectl's default). Collections honour label and
 * field selectors and limit/continue paging, and carry the store's resourceVersion for a following watch.
 */
function includeObject(ctx: RequestContext): IncludeObject {
  const value = ctx.query.get('includeObject');
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}

export function serveGet(ctx: RequestContext): void {
  const { store, path } = ctx;
  const object = store.get(path.type.plural, path.name!, path.namespace);
  if (!object) return sendStatus(ctx.res, notFound(path.type, path.name!));
  if (wantsTable(ctx.req.headers.accept)) {
    return sendJson(ctx.res, 200, renderTable(path.type, [present(ctx, object)], { now: store.clock.now(), minor: ctx.minor, include: includeObject(ctx), resourceVersion: object.metadata.resourceVersion }));
  }
  sendJson(ctx.res, 200, present(ctx, object));
}

interface ContinueToken {
  rv: string;
  start: number;
}

export function serveList(ctx: RequestContext): void {
  const { store, path, query } = ctx;
  const matches = selectorPredicate(ctx);
  // The store's own frozen objects, not copies: each is presented as a new object and serialized at once.
  const all = store.read(path.type.plural, path.namespace).filter(matches);
  let start = 0;
  let resourceVersion = store.resourceVersion();
  const token = query.get('continue');
  if (token) {
    try {
      const parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as ContinueToken;
      start = parsed.start;
      resourceVersion = parsed.rv;
    } catch {
      return sendStatus(ctx.res, badRequest('continue key is not valid: illegal base64 data'));
    }
    if (store.historySince(Number(resourceVersion)) === 'expired') {
      return sendStatus(ctx.res, expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.'));
    }
  }
  // resourceVersionMatch=Exact asks for the list as of that revision: gone once compacted (410 Expired, as etcd
  // answers "mvcc: required revision has been compacted"; the apiserver's message is "too old resource version").
  const exact = query.get('resourceVersion');
  if (!token && exact && query.get('resourceVersionMatch') === 'Exact' && store.historySince(Number(exact)) === 'expired') {
    return sendStatus(ctx.res, expired(`too old resource version: ${exact} (${store.resourceVersion()})`));
  }
  // resourceVersion "0" is served from the apiserver's watch cache, which ignores limit and answers in one go.
  const limit = query.get('resourceVersion') === '0' ? 0 : Number(query.get('limit') ?? 0);
  const end = limit > 0 ? start + limit : all.length;
  const items = all.slice(start, end).map((o) => present(ctx, o));
  const continueToken = end < all.length ? Buffer.from(JSON.stringify({ rv: resourceVersion, start: end })).toString('base64') : undefined;
  if (wantsTable(ctx.req.headers.accept)) {
    return sendJson(
      ctx.res,
      200,
      renderTable(path.type, items, { now: store.clock.now(), minor: ctx.minor, include: includeObject(ctx), resourceVersion, continueToken }),
    );
  }
  sendJson(ctx.res, 200, {
    kind: `${path.type.kind}List`,
    apiVersion: apiVersionOf(path.type, path.version),
    metadata: {
      resourceVersion,
      ...(continueToken ? { continue: continueToken, remainingItemCount: all.length - end } : {}),
    },
    items,
  });
}
