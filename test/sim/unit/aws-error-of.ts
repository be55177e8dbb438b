import { AwsApiError } from '../../../src/sim/aws/aws-error.js';

/** The AwsApiError a simulated AWS call throws (fails the test when it throws nothing, or something else). */
export function awsError(fn: () => unknown): AwsApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AwsApiError) return error;
    throw error;
  }
  throw new Error('expected an AWS error');
}
