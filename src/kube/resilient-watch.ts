/**
 * List, then watch from the list's resourceVersion, for as long as the caller wants — the informer pattern, with
 * the two things client-node 1.4 leaves to us:
 * - 410 Gone/Expired (an ERROR event in the stream, or an HTTP 410 answer): our resourceVersion fell out of the
 *   apiserver's history, so events were missed; list again and hand the caller the full set (onSynced).
 * - any other failure, or a stream that ends: reconnect from the last resourceVersion seen, with capped exponential
 *   backoff (client-node reconnects at once, which spins against a server that keeps closing the stream).
 * The first list happens before this resolves, so a caller learns at once about a 403 or an unknown resource.
 */

import type { Watch } from '@kubernetes/client-node';
import { backoffMs } from '../domain/backoff.js';
import type { Logger } from '../log/logger.js';
import type { Clock } from '../ports/clock.js';
import type { KubeList, KubeObject, KubeWatchHandle, WatchEventType } from '../ports/kube-port.js';

export interface WatchBackoff {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_WATCH_BACKOFF: WatchBackoff = { initialMs: 500, maxMs: 30_000 };
/** Server-side stream length (the apiserver closes it after this); we then reconnect from where we were. */
const WATCH_TIMEOUT_SECONDS = 300;

export interface ResilientWatchOptions<T extends KubeObject> {
  /** "watching nodes in cluster demo", for errors and logs. */
  description: string;
  path: string;
  query: Record<string, string | undefined>;
  list(): Promise<KubeList<T>>;
  watcher: Pick<Watch, 'watch'>;
  toError(operation: string, error: unknown): Error;
  handlers: {
    onEvent(type: WatchEventType, object: T): void;
    onSynced?(items: T[]): void;
    onError?(error: Error): void;
  };
  clock: Clock;
  logger?: Logger;
  backoff?: WatchBackoff;
}

type StreamEnd = { kind: 'expired' } | { kind: 'failed'; error: unknown } | { kind: 'ended'; healthy: boolean };

/** A stream that stayed open this long before a clean close was healthy, even if nothing changed meanwhile. */
const HEALTHY_STREAM_MS = 10_000;

export async function startResilientWatch<T extends KubeObject>(opts: ResilientWatchOptions<T>): Promise<KubeWatchHandle> {
  const backoff = opts.backoff ?? DEFAULT_WATCH_BACKOFF;
  const stopping = new AbortController();
  let current: AbortController | undefined;
  let resourceVersion = await relist(); // the first failure is the caller's to see

  async function relist(): Promise<string> {
    const list = await opts.list();
    opts.handlers.onSynced?.(list.items);
    return list.resourceVersion;
  }

  function report(operation: string, error: unknown) {
    const wrapped = opts.toError(operation, error);
    opts.logger?.warn({ err: wrapped }, `${opts.description}: ${wrapped.message}`);
    opts.handlers.onError?.(wrapped);
  }

  function streamOnce(): Promise<StreamEnd> {
    return new Promise<StreamEnd>((resolve) => {
      let expired = false;
      let streamError: unknown;
      let sawEvents = false;
      const startedAt = opts.clock.now();
      const onEvent = (type: string, object: any) => {
        if (type === 'ERROR') {
          // A Status inside a 200 stream: 410 means "relist"; anything else ends this stream as a failure.
          if (object?.code === 410) expired = true;
          else streamError = Object.assign(new Error(object?.message ?? 'watch error'), { code: object?.code, body: object });
          return;
        }
        const version = object?.metadata?.resourceVersion;
        if (typeof version === 'string' && version) resourceVersion = version;
        sawEvents = true;
        // BOOKMARKs only move resourceVersion forward; they carry no object for the caller.
        if (type !== 'BOOKMARK') opts.handlers.onEvent(type as WatchEventType, object as T);
      };
      const onDone = (error: unknown) => {
        if ((error as { statusCode?: number } | null)?.statusCode === 410 || expired) resolve({ kind: 'expired' });
        else if (error || streamError) resolve({ kind: 'failed', error: error ?? streamError });
        else resolve({ kind: 'ended', healthy: sawEvents || opts.clock.now() - startedAt >= HEALTHY_STREAM_MS });
      };
      const query = { ...opts.query, resourceVersion, allowWatchBookmarks: 'true', timeoutSeconds: String(WATCH_TIMEOUT_SECONDS) };
      opts.watcher.watch(opts.path, query, onEvent, onDone).then(
        (controller) => {
          current = controller;
          if (stopping.signal.aborted) controller.abort();
        },
        (error) => onDone(error),
      );
    });
  }

  async function run() {
    let failures = 0;
    let needsList = false;
    while (!stopping.signal.aborted) {
      if (failures > 0) {
        const delay = backoffMs(failures - 1, { baseMs: backoff.initialMs, maxMs: backoff.maxMs });
        opts.logger?.debug({ delayMs: delay, failures }, `${opts.description}: reconnecting after backoff`);
        try {
          await opts.clock.sleep(delay, stopping.signal);
        } catch {
          return; // stopped while waiting
        }
      }
      if (needsList) {
        try {
          resourceVersion = await relist();
          needsList = false;
        } catch (error) {
          if (stopping.signal.aborted) return;
          failures++;
          report(`${opts.description.replace(/^watching/, 'listing')} (to resume the watch)`, error);
          continue;
        }
      }
      const end = await streamOnce();
      current = undefined;
      if (stopping.signal.aborted) return;
      if (end.kind === 'expired') {
        opts.logger?.info(`${opts.description}: resourceVersion expired, listing again`);
        needsList = true;
        failures = 0;
      } else if (end.kind === 'failed') {
        failures++;
        report(opts.description, end.error);
      } else {
        // A normal close (the server's timeoutSeconds) after a healthy stream: reconnect at once. A stream closed
        // at once without a single event counts as a failure, so a server that keeps hanging up is not hammered.
        failures = end.healthy ? 0 : failures + 1;
      }
    }
  }

  void run().catch((error) => report(opts.description, error));
  return {
    stop() {
      stopping.abort();
      current?.abort();
    },
  };
}
