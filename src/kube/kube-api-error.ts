/**
 * Builds the KubeApiError for a failed Kubernetes call: which operation, the HTTP code, the apiserver's Status
 * reason and message, and what to do about the usual causes, chained to the client-node error.
 *
 *   "listing nodes in cluster demo failed: 403 Forbidden: nodes is forbidden: User "arn:…" cannot list resource
 *    "nodes"; map the bot's IAM role in the cluster's access entries (or aws-auth) with read access to nodes"
 *
 * Network failures (no HTTP answer) get code 0 and reason "Unreachable".
 */

import { STATUS_CODES } from 'node:http';
import { KubeApiError } from '../ports/kube-port.js';

interface StatusBody {
  code?: number;
  reason?: string;
  message?: string;
}

export function toKubeApiError(operation: string, error: unknown): KubeApiError {
  if (error instanceof KubeApiError) return error;
  const e = (error ?? {}) as { code?: unknown; statusCode?: unknown; body?: unknown; message?: string; name?: string };
  const httpCode = typeof e.code === 'number' ? e.code : typeof e.statusCode === 'number' ? e.statusCode : 0;
  const status = parseStatus(e.body);
  const code = httpCode || status?.code || 0;
  if (code === 0 && !isNetworkError(error)) {
    // Failed before any request went out (no credentials for the token, a bad endpoint URL).
    return new KubeApiError(`${operation} failed: ${e.message ?? String(error)}`, 0, e.name === 'EksTokenError' ? 'NoCredentials' : 'ClientError', { cause: error });
  }
  if (code === 0) {
    const why = networkReason(error);
    return new KubeApiError(
      `${operation} failed: the Kubernetes API could not be reached (${why}); check the cluster endpoint's public/private access settings, security groups and the network`,
      0,
      'Unreachable',
      { cause: error },
    );
  }
  const reason = status?.reason;
  // client-node's Watch reports a refused watch as Error(statusText) with statusCode, without the Status body.
  const fallback = e.message && !/^HTTP \d+$/.test(e.message) && e.message !== STATUS_CODES[code] ? e.message : undefined;
  const detail = status?.message ?? fallback;
  const hint = hintFor(code, reason);
  const text = `${operation} failed: ${code} ${STATUS_CODES[code] ?? reason ?? 'Error'}${detail ? `: ${detail}` : ''}${hint ? `; ${hint}` : ''}`;
  return new KubeApiError(text, code, reason, { cause: error });
}

function parseStatus(body: unknown): StatusBody | undefined {
  let value = body;
  if (Buffer.isBuffer(value)) value = value.toString('utf8');
  if (typeof value === 'string') {
    const text = value.trim();
    try {
      value = JSON.parse(text);
    } catch {
      return text ? { message: text.slice(0, 300) } : undefined;
    }
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, reason, message } = value as StatusBody;
  return { code: typeof code === 'number' ? code : undefined, reason, message };
}

const NETWORK_CODE = /^(E[A-Z_]+|UND_ERR_[A-Z_]+|CERT_[A-Z_]+|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_[A-Z_]+)$/;

// node-fetch's FetchError (type "system") carries the socket/TLS error code, sometimes one cause deeper.
function isNetworkError(error: unknown): boolean {
  const e = error as { name?: string; code?: unknown; errno?: unknown; cause?: { code?: unknown } } | undefined;
  if (e?.name === 'FetchError' || e?.name === 'AbortError') return true;
  return [e?.code, e?.errno, e?.cause?.code].some((c) => typeof c === 'string' && NETWORK_CODE.test(c));
}

function networkReason(error: unknown): string {
  const e = error as { code?: unknown; errno?: unknown; message?: string; cause?: { code?: unknown } } | undefined;
  const code = [e?.code, e?.errno, e?.cause?.code].find((c) => typeof c === 'string');
  return (code as string | undefined) ?? e?.message ?? String(error);
}

function hintFor(code: number, reason: string | undefined): string | undefined {
  switch (code) {
    case 401:
      return "the cluster did not accept the bot's EKS token: check the bot's AWS credentials and that the cluster's authentication mode allows access entries or aws-auth";
    case 403:
      return "grant the bot's Kubernetes identity this permission: apply deploy/rbac/cluster-role.yaml and put the bot's IAM role in its group eks-upgrade-bot with an access entry (docs/permissions.md)";
    case 409:
      return 'the object changed or already exists; read it again and retry';
    case 410:
      return 'the requested resourceVersion is too old; list again';
    case 429:
      return reason === 'TooManyRequests' ? 'retry later (a PodDisruptionBudget or apiserver rate limit refused it for now)' : 'retry later';
    default:
      return code >= 500 ? 'the apiserver failed; retry later' : undefined;
  }
}
