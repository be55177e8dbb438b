/**
 * Transient or permanent? A transient failure (throttling, a 5xx, a dropped connection) is retried with backoff;
 * a permanent one (access denied, bad parameter, not found) fails the step at once with what to do. The SDK has
 * already retried transient errors a few times by the time one reaches us, so our retries are the outer,
 * slower layer.
 */
const TRANSIENT_NAMES = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'ServerException',
  'ServiceUnavailableException',
  'ServiceUnavailable',
  'InternalFailure',
  'InternalServerError',
  'InternalServerException',
  'InternalError',
  'Unavailable',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
  'AbortError',
]);

const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'UND_ERR_SOCKET']);

interface ErrorLike {
  name?: string;
  code?: unknown;
  message?: string;
  $fault?: string;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: number };
  cause?: unknown;
}

export function isTransientError(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const e = error as ErrorLike;
  if ((e as { permanent?: boolean }).permanent === true) return false;
  if (e.name && TRANSIENT_NAMES.has(e.name)) return true;
  if (typeof e.code === 'string' && TRANSIENT_CODES.has(e.code)) return true;
  // KubeApiError carries the HTTP code as a number.
  if (typeof e.code === 'number' && (e.code === 429 || e.code >= 500)) return true;
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && (status === 429 || status >= 500)) return true;
  if (e.$retryable) return true;
  if (e.$fault === 'server') return true;
  if (e.cause && e.cause !== error) return isTransientError(e.cause);
  return false;
}

/** "AccessDeniedException: User … is not authorized" — the AWS error name and message, for sentences. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const name = error.name && error.name !== 'Error' ? `${error.name}: ` : '';
    return `${name}${error.message}`.trim();
  }
  return String(error);
}
