/**
 * Turns an AWS SDK failure into one or two sentences for people (Slack, CLI): which operation failed, AWS's own
 * error code and message, and what to do for the usual causes. The SDK error itself is left untouched for code to
 * branch on; this is only its human rendering, so it never includes a stack or a credential.
 *
 *   describeAwsError('DescribeCluster for demo', error)
 *   → "DescribeCluster for demo failed: ResourceNotFoundException: No cluster found for name: demo. Check the
 *      cluster name and region in clusters.yaml."
 */
import { maskSecrets } from '../log/logger.js';

interface AwsLikeError {
  name?: string;
  code?: string;
  message?: string;
  cause?: unknown;
  $fault?: string;
  $metadata?: { attempts?: number; httpStatusCode?: number };
}

const ACCESS_DENIED = new Set(['AccessDeniedException', 'AccessDenied', 'UnauthorizedOperation', 'AuthorizationError', 'UnauthorizedException']);
const BAD_CREDENTIALS = new Set(['UnrecognizedClientException', 'InvalidClientTokenId', 'InvalidSignatureException', 'SignatureDoesNotMatch', 'AuthFailure', 'ExpiredToken', 'ExpiredTokenException', 'InvalidAccessKeyId']);
const THROTTLED = new Set(['ThrottlingException', 'Throttling', 'TooManyRequestsException', 'RequestLimitExceeded', 'ThrottledException', 'RequestThrottled']);
const SERVER_SIDE = new Set(['ServerException', 'ServiceUnavailableException', 'InternalServerError', 'InternalError', 'ServiceUnavailable', 'InternalServerException']);
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'TimeoutError', 'RequestTimeout']);

// IAM prefix per API operation we call, for "grant <service>:<Action>".
const SERVICE_OF: Array<[RegExp, string]> = [
  [/^GetParameters?(ByPath)?$/, 'ssm'],
  [/^Describe(Subnets|Instances|LaunchTemplateVersions|Images)$/, 'ec2'],
  [/^(AssumeRole|GetCallerIdentity)$/, 'sts'],
  [/^(Describe|Update)AutoScalingGroups?$/, 'autoscaling'],
];

export function describeAwsError(operation: string, error: unknown): string {
  const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as AwsLikeError;
  const code = errorCode(e);
  const message = e.message ? sentence(e.message) : 'no message.';
  const headline = `${operation} failed: ${code ? `${code}: ` : ''}${message}`;
  const advice = adviceFor(operation, code, e);
  return maskSecrets(advice ? `${headline} ${advice}` : headline);
}

/**
 * What to do about a call AWS refused for lack of permission, naming the IAM action from AWS's own message
 * ("… is not authorized to perform: eks:UpdateClusterVersion …"); undefined for any other error.
 */
export function accessDeniedRemedy(error: unknown): string | undefined {
  const e = (typeof error === 'object' && error !== null ? error : {}) as AwsLikeError;
  const code = errorCode(e);
  if (!code || !ACCESS_DENIED.has(code)) return undefined;
  const action = /perform: ([a-z0-9-]+:[A-Za-z0-9]+)/.exec(e.message ?? '')?.[1];
  return `grant the bot's IAM role ${action ? `the ${action} permission` : 'the permission this call needs'} (deploy/iam/permissions-policy.json lists every action the bot uses), then start the upgrade again: it resumes from the cluster's state`;
}

function errorCode(e: AwsLikeError): string | undefined {
  const network = networkCode(e);
  if (network) return network;
  if (e.name && e.name !== 'Error') return e.name;
  return e.code;
}

// Node puts ECONNREFUSED & co. on `code`, sometimes one `cause` deeper (fetch), sometimes in an AggregateError.
function networkCode(e: AwsLikeError, depth = 0): string | undefined {
  if (depth > 3 || !e) return undefined;
  if (e.code && UNREACHABLE.has(e.code)) return e.code;
  if (e.name && UNREACHABLE.has(e.name)) return e.name;
  const errors = (e as { errors?: AwsLikeError[] }).errors;
  for (const inner of errors ?? []) {
    const found = networkCode(inner, depth + 1);
    if (found) return found;
  }
  return typeof e.cause === 'object' && e.cause !== null ? networkCode(e.cause as AwsLikeError, depth + 1) : undefined;
}

/** host:port of the connection that failed (Node sets address/port, or hostname for DNS errors), if any. */
function triedAddress(e: AwsLikeError, depth = 0): string | undefined {
  if (depth > 3 || !e) return undefined;
  const socket = e as { address?: string; port?: number; hostname?: string };
  if (socket.address) return socket.port ? `${socket.address.includes(':') ? `[${socket.address}]` : socket.address}:${socket.port}` : socket.address;
  if (socket.hostname) return socket.hostname;
  for (const inner of (e as { errors?: AwsLikeError[] }).errors ?? []) {
    const found = triedAddress(inner, depth + 1);
    if (found) return found;
  }
  return typeof e.cause === 'object' && e.cause !== null ? triedAddress(e.cause as AwsLikeError, depth + 1) : undefined;
}

function adviceFor(operation: string, code: string | undefined, e: AwsLikeError): string | undefined {
  if (!code) return undefined;
  if (ACCESS_DENIED.has(code)) {
    const action = /perform: ([a-z0-9-]+:[A-Za-z0-9]+)/.exec(e.message ?? '')?.[1] ?? iamActionFor(operation);
    return `Grant the bot's IAM role ${action ? `the ${action} permission` : 'the permission for this call'} (or set roleArn for this cluster in clusters.yaml to a role that has it).`;
  }
  if (code === 'CredentialsProviderError' || /could not load credentials/i.test(e.message ?? '')) {
    return 'No AWS credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or run the bot with an IAM role (EKS Pod Identity, IRSA or an instance profile).';
  }
  if (BAD_CREDENTIALS.has(code)) {
    return 'AWS rejected the credentials (wrong, expired or for another partition): refresh them or check AWS_PROFILE and the system clock.';
  }
  if (THROTTLED.has(code)) {
    const attempts = e.$metadata?.attempts;
    return `AWS is throttling these calls${attempts ? ` (gave up after ${attempts} attempts)` : ' (retried with backoff)'}; try again in a minute.`;
  }
  if (SERVER_SIDE.has(code)) return 'This is an error on the AWS side and was retried; try again later.';
  if (UNREACHABLE.has(code)) {
    // Name the address that was tried (from the socket error itself), not an environment variable that may not be
    // what this call used (--endpoint-url overrides AWS_ENDPOINT_URL).
    const tried = triedAddress(e);
    return `The AWS endpoint${tried ? ` ${tried}` : ''} could not be reached: check AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE> (or --endpoint-url), the region, proxy settings and the network.`;
  }
  if (code === 'ResourceNotFoundException' || code === 'NotFoundException') {
    return 'Check the cluster name and region in clusters.yaml.';
  }
  if (code === 'ResourceInUseException') return 'Another update is already running on this resource: wait for it to finish, then try again.';
  if (code === 'ResourceLimitExceededException') return 'An account limit was reached: raise the quota in Service Quotas or remove unused resources.';
  return undefined;
}

function iamActionFor(operation: string): string | undefined {
  const api = /^([A-Z][A-Za-z0-9]+)/.exec(operation)?.[1];
  if (!api) return undefined;
  const service = SERVICE_OF.find(([pattern]) => pattern.test(api))?.[1] ?? 'eks';
  return `${service}:${api}`;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
