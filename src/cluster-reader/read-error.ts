import { describeAwsError } from '../aws/describe-aws-error.js';
import { maskSecrets } from '../log/logger.js';
import { KubeApiError } from '../ports/kube-port.js';
import { DeadlineExceeded } from './bounded.js';

/**
 * One line for a failed read, for status rows and EKS090 findings: AWS errors with their code and advice
 * (describeAwsError), Kubernetes errors with their HTTP code, anything else by its message. Never a stack.
 */
export function describeReadError(operation: string, error: unknown): string {
  if (error instanceof KubeApiError) {
    return maskSecrets(`${error.message}${/[.!?]$/.test(error.message) ? '' : '.'}`).split('\n')[0];
  }
  if (error instanceof DeadlineExceeded) return `${operation}: ${error.message}.`;
  if (typeof error === 'object' && error !== null && ('$metadata' in error || 'code' in error || 'name' in error) && !(error instanceof TypeError)) {
    return describeAwsError(operation, error).split('\n')[0];
  }
  const message = error instanceof Error ? error.message : String(error);
  return maskSecrets(`${operation} failed: ${message.split('\n')[0]}`);
}

/** Kubernetes "this resource type does not exist here" (CRD not installed). */
export function isNotFound(error: unknown): boolean {
  return error instanceof KubeApiError && error.code === 404;
}
