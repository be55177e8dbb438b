import { readFile } from 'node:fs/promises';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { GuardAuth, GuardConfig } from '../config/guards-config.js';
import type { GuardReading } from '../ports/guards/guard-port.js';
import { getJson } from './http-json.js';

/**
 * A Prometheus guard over the HTTP API (https://prometheus.io/docs/prometheus/latest/querying/api/):
 * `GET <url>/api/v1/query?query=…` for the instant vector the evaluator compares, `GET <url>/api/v1/query_range`
 * for the sparkline. The url may carry a path prefix (Amazon Managed Prometheus:
 * https://aps-workspaces.<region>.amazonaws.com/workspaces/<id>), which the API paths are appended to.
 *
 * No `time` is sent with the instant query: Prometheus stamps samples with its own wall clock, which the bot's clock
 * need not be (a simulator at speed), so "now" is Prometheus's own. The range likewise ends at the wall clock.
 */
export interface PrometheusReaderOptions {
  /** Credentials for SigV4 (Amazon Managed Prometheus, service aps): the bot's own chain for the cluster. */
  credentialsFor(target: { region: string; roleArn?: string }): AwsCredentialIdentityProvider;
}

type PrometheusGuard = GuardConfig & { source: Extract<GuardConfig['source'], { kind: 'prometheus' }> };

export async function readPrometheusGuard(guard: PrometheusGuard, cluster: { roleArn?: string }, options: PrometheusReaderOptions): Promise<GuardReading> {
  const answer = await queryApi(guard, cluster, options, 'query', { query: guard.source.query });
  if (!answer.ok) return { kind: 'error', reason: answer.reason };
  const data = answer.data as { resultType?: string; result?: unknown };
  if (data.resultType === 'scalar') {
    const [, value] = data.result as [number, string];
    return { kind: 'series', series: [{ labels: {}, value: sampleValue(value) }] };
  }
  if (data.resultType !== 'vector') {
    return { kind: 'error', reason: `cannot read guard ${guard.name}: the query returns a ${data.resultType ?? 'result of no type'}, not an instant vector or a scalar; compare a number, e.g. avg_over_time(…[5m])` };
  }
  const result = data.result as Array<{ metric: Record<string, string>; value: [number, string] }>;
  return { kind: 'series', series: result.map((one) => ({ labels: one.metric, value: sampleValue(one.value[1]) })) };
}

/** The worst series at each step of [now - windowMs, now] (lowest for "<" guards, highest for ">"), for the sparkline. */
export async function prometheusHistory(guard: PrometheusGuard, cluster: { roleArn?: string }, options: PrometheusReaderOptions, windowMs: number, stepMs: number): Promise<Array<number | undefined> | undefined> {
  const end = Math.floor(Date.now() / 1000);
  const start = end - Math.floor(windowMs / 1000);
  const step = Math.max(1, Math.floor(stepMs / 1000));
  const answer = await queryApi(guard, cluster, options, 'query_range', { query: guard.source.query, start: String(start), end: String(end), step: `${step}s` });
  if (!answer.ok) return undefined;
  const result = (answer.data as { result?: Array<{ values: Array<[number, string]> }> }).result ?? [];
  const low = guard.source.breachWhen.op.startsWith('<');
  const points: Array<number | undefined> = [];
  for (let at = start; at <= end; at += step) {
    const values = result.flatMap((series) => series.values.filter(([time]) => Math.round(time) === at).map(([, value]) => sampleValue(value))).filter((value) => !Number.isNaN(value));
    points.push(values.length === 0 ? undefined : low ? Math.min(...values) : Math.max(...values));
  }
  return points;
}

type ApiAnswer = { ok: true; data: unknown } | { ok: false; reason: string };

async function queryApi(guard: PrometheusGuard, cluster: { roleArn?: string }, options: PrometheusReaderOptions, api: 'query' | 'query_range', params: Record<string, string>): Promise<ApiAnswer> {
  const url = new URL(`${guard.source.url.replace(/\/+$/, '')}/api/v1/${api}`);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  let headers: Record<string, string>;
  try {
    headers = await authHeaders(guard.source.auth, url, cluster, options);
  } catch (error) {
    return { ok: false, reason: `cannot read guard ${guard.name}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const answer = await getJson(url, headers, 'Prometheus');
  if (!answer.ok) return { ok: false, reason: `cannot read guard ${guard.name}: ${answer.reason}` };
  const body = answer.body as { status?: string; data?: unknown; error?: string };
  if (body.status !== 'success') return { ok: false, reason: `cannot read guard ${guard.name}: Prometheus said ${body.error ?? 'the query failed'}` };
  return { ok: true, data: body.data };
}

/** Sample values are strings; Prometheus writes infinities as "+Inf" and "-Inf", which Number() does not read. */
function sampleValue(text: string): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

async function authHeaders(auth: GuardAuth | undefined, url: URL, cluster: { roleArn?: string }, options: PrometheusReaderOptions): Promise<Record<string, string>> {
  if (!auth) return {};
  switch (auth.kind) {
    case 'bearer':
      return { authorization: `Bearer ${auth.token}` };
    case 'bearer-file':
      // Read each time: projected tokens are rotated on disk.
      return { authorization: `Bearer ${(await secretFile(auth.path, 'bearerTokenFile')).trim()}` };
    case 'basic': {
      const password = auth.password ?? (await secretFile(auth.passwordFile!, 'passwordFile')).trim();
      return { authorization: `Basic ${Buffer.from(`${auth.username}:${password}`).toString('base64')}` };
    }
    case 'sigv4': {
      const signer = new SignatureV4({ service: auth.service, region: auth.region, credentials: options.credentialsFor({ region: auth.region, roleArn: cluster.roleArn }), sha256: Sha256 });
      const query: Record<string, string> = {};
      url.searchParams.forEach((value, name) => (query[name] = value));
      const signed = await signer.sign({
        method: 'GET', protocol: url.protocol, hostname: url.hostname, ...(url.port ? { port: Number(url.port) } : {}), path: url.pathname, query,
        headers: { host: url.host },
      });
      const { host: _host, ...rest } = signed.headers;
      return rest;
    }
  }
}

async function secretFile(path: string, key: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`the ${key} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
}
