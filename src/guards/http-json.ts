/**
 * One GET of a guard's HTTP source (Prometheus, Alertmanager) and its failures as sentences: the host that cannot be
 * reached and why, or the status the server answered with its own error text. Guards are read once per interval
 * while a job runs, so a slow server gets a bounded wait, not a stuck job.
 */

export const GUARD_HTTP_TIMEOUT_MS = 10_000;

export type HttpJson = { ok: true; body: unknown } | { ok: false; reason: string };

export async function getJson(url: URL, headers: Record<string, string>, what: string): Promise<HttpJson> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal: AbortSignal.timeout(GUARD_HTTP_TIMEOUT_MS) });
  } catch (error) {
    return { ok: false, reason: `${what} at ${url.origin} cannot be reached (${networkCause(error)})` };
  }
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const said = serverError(body) ?? text.trim().split('\n')[0]?.slice(0, 200);
    const hint = response.status === 401 || response.status === 403 ? '; check the guard\'s auth' : response.status === 404 ? `; check the guard's url (the path ${url.pathname} does not exist)` : '';
    return { ok: false, reason: `${what} at ${url.origin} answered ${response.status} ${response.statusText}${said ? `: ${said}` : ''}${hint}` };
  }
  if (body === undefined) return { ok: false, reason: `${what} at ${url.origin} answered with something that is not JSON; check the guard's url` };
  return { ok: true, body };
}

/** Prometheus's `{"status":"error","errorType":"bad_data","error":"…"}`, or Alertmanager's plain string. */
function serverError(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  const error = (body as { error?: unknown; errorType?: unknown } | undefined)?.error;
  if (typeof error !== 'string') return undefined;
  const type = (body as { errorType?: unknown }).errorType;
  return typeof type === 'string' ? `${type}: ${error}` : error;
}

function networkCause(error: unknown): string {
  if ((error as { name?: string } | null)?.name === 'TimeoutError') return `no answer within ${GUARD_HTTP_TIMEOUT_MS / 1000} s`;
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
