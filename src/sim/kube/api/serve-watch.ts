/**
 * A watch: HTTP 200, chunked, one JSON event per line ({type, object}). From resourceVersion N it replays the
 * changes after N from the store's history (410 Expired as an ERROR event when N is older than the history,
 * then the stream ends); without one it starts with ADDED for every current object. Objects that start or stop
 * matching the selectors arrive as ADDED/DELETED, as from the apiserver's watch cache. BOOKMARKs when asked,
 * and the stream ends after timeoutSeconds.
 */

import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { HistoryRecord } from '../create-sim-kube-store.js';
import { expired } from './kube-status.js';
import { renderTable, wantsTable } from '../tables/render-table.js';
import { present, selectorPredicate, type RequestContext } from './request-context.js';
import { apiVersionOf } from '../objects/resource-registry.js';

export const BOOKMARK_INTERVAL_MS = 5000;

const openWatches = new WeakMap<object, Set<() => void>>();

/** Ends every open watch stream of a store (so an HTTP server can close without waiting for clients). */
export function closeWatches(store: object): void {
  for (const finish of [...(openWatches.get(store) ?? [])]) finish();
}

export function serveWatch(ctx: RequestContext, options: { bookmarkIntervalMs?: number } = {}): void {
  const { store, path, query, res } = ctx;
  const matches = selectorPredicate(ctx);
  const asTable = wantsTable(ctx.req.headers.accept);
  let sentColumns = false;
  const inScope = (object: KubeObject) => !path.type.namespaced || path.namespace === undefined || object.metadata.namespace === path.namespace;

  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();

  const write = (type: string, object: unknown) => {
    if (!res.writableEnded) res.write(`${JSON.stringify({ type, object })}\n`);
  };
  const send = (type: string, object: KubeObject) => {
    if (!asTable) return write(type, present(ctx, object));
    // The apiserver sends column definitions with the first table only, to save bandwidth.
    const table = renderTable(path.type, [present(ctx, object)], { now: store.clock.now(), minor: ctx.minor, noHeaders: sentColumns });
    sentColumns = true;
    write(type, table);
  };

  const deliver = (record: HistoryRecord) => {
    if (record.resource !== path.type.plural) return;
    const now = inScope(record.object) && matches(record.object);
    const before = record.oldObject !== undefined && inScope(record.oldObject) && matches(record.oldObject);
    if (record.type === 'ADDED' && now) send('ADDED', record.object);
    else if (record.type === 'DELETED' && (now || before)) send('DELETED', record.object);
    else if (record.type === 'MODIFIED') {
      if (now && before) send('MODIFIED', record.object);
      else if (now) send('ADDED', record.object);
      else if (before) send('DELETED', record.object);
    }
  };

  const rvParam = query.get('resourceVersion');
  let ended = false;
  const cleanups: Array<() => void> = [];
  const finish = () => {
    if (ended) return;
    ended = true;
    for (const cleanup of cleanups) cleanup();
    if (!res.writableEnded) res.end();
  };

  if (rvParam && rvParam !== '0') {
    const since = store.historySince(Number(rvParam));
    if (since === 'expired' || !/^\d+$/.test(rvParam)) {
      write('ERROR', expired(`too old resource version: ${rvParam} (${store.resourceVersion()})`));
      return finish();
    }
    for (const record of since) deliver(record);
  } else {
    for (const object of store.list(path.type.plural, path.namespace)) if (matches(object)) send('ADDED', object);
    if (query.get('sendInitialEvents') === 'true') {
      write('BOOKMARK', {
        kind: path.type.kind,
        apiVersion: apiVersionOf(path.type, path.version),
        metadata: { resourceVersion: store.resourceVersion(), annotations: { 'k8s.io/initial-events-end': 'true' } },
      });
    }
  }
  cleanups.push(store.subscribeRecords(deliver));
  const open = openWatches.get(store) ?? new Set();
  openWatches.set(store, open);
  open.add(finish);
  cleanups.push(() => open.delete(finish));

  const bookmarks = query.get('allowWatchBookmarks') === 'true';
  const bookmark = () => {
    if (bookmarks) write('BOOKMARK', { kind: path.type.kind, apiVersion: apiVersionOf(path.type, path.version), metadata: { resourceVersion: store.resourceVersion() } });
  };
  if (bookmarks) {
    const timer = setInterval(bookmark, options.bookmarkIntervalMs ?? BOOKMARK_INTERVAL_MS);
    timer.unref?.();
    cleanups.push(() => clearInterval(timer));
  }
  const timeoutSeconds = Number(query.get('timeoutSeconds') ?? 0);
  if (timeoutSeconds > 0) {
    // Like the watch cache, a last bookmark just before the timeout lets the client resume without a relist.
    const timer = setTimeout(() => {
      bookmark();
      finish();
    }, timeoutSeconds * 1000);
    timer.unref?.();
    cleanups.push(() => clearTimeout(timer));
  }
  ctx.req.on('close', finish);
  res.on('close', finish);
}
