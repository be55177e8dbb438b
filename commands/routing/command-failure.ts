import { describeAwsError } from '../../src/aws/describe-aws-error.js';
import { KubeApiError } from '../../src/ports/kube-port.js';
import { maskSecrets } from '../../src/log/logger.js';
import { isQueueUnavailable, QUEUE_UNAVAILABLE_SENTENCE } from '../../src/domain/queue-unavailable.js';

/**
 * A subcommand's outside call that failed, with the operation it was: `new CommandFailure('DescribeCluster for
 * demo', error)`. The router turns it into a sentence for the user (AWS's code and message, what to do) and logs
 * the error itself; users never see a stack trace.
 */
export class CommandFailure extends Error {
  readonly code = 'command_failed';
  constructor(
    readonly operation: string,
    cause: unknown,
  ) {
    super(`${operation} failed`, { cause });
    this.name = 'CommandFailure';
  }
}

/** Runs `call`, wrapping any failure as a CommandFailure for `operation`. */
export async function attempt<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new CommandFailure(operation, error);
  }
}

export function describeFailure(error: unknown): string {
  if (isQueueUnavailable(error)) return QUEUE_UNAVAILABLE_SENTENCE;
  if (error instanceof CommandFailure) {
    if (error.cause instanceof KubeApiError) return describeKubeError(error.operation, error.cause);
    return describeAwsError(error.operation, error.cause);
  }
  if (error instanceof KubeApiError) return describeKubeError('A Kubernetes API call', error);
  // AWS SDK exceptions carry $metadata; describe them even when a handler did not name the operation.
  if (typeof error === 'object' && error !== null && '$metadata' in error) return describeAwsError('An AWS call', error);
  const message = maskSecrets(error instanceof Error ? error.message : String(error)).split('\n')[0];
  return `${message}${/[.!?]$/.test(message) ? '' : '.'} The details are in the bot's log.`;
}

function describeKubeError(operation: string, error: KubeApiError): string {
  // The Kubernetes adapter already words its errors as full sentences (operation, code, message, what to do).
  if (/ failed: /.test(error.message)) return maskSecrets(error.message);
  const advice =
    error.code === 401 || error.code === 403
      ? " Map the bot's IAM role to a Kubernetes group that may read it (an EKS access entry or aws-auth)."
      : '';
  return maskSecrets(`${operation} failed: HTTP ${error.code}${error.reason ? ` ${error.reason}` : ''}: ${error.message}.${advice}`);
}
