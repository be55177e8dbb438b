import { AwsApiError } from '../aws-error.js';

/**
 * EC2's DryRun: "Checks whether you have the required permissions for the action, without actually making the
 * request, and provides an error response. If you have the required permissions, the error response is
 * DryRunOperation. Otherwise, it is UnauthorizedOperation." (every EC2 action's DryRun parameter,
 * https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeSubnets.html; the error codes and HTTP 412 in
 * https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html). Called after IAM has authorized
 * the call, so reaching here means the caller may: nothing is read or changed.
 */
export function refuseDryRun(form: URLSearchParams | undefined): void {
  if (form?.get('DryRun') === 'true') throw new AwsApiError(412, 'DryRunOperation', 'Request would have succeeded, but DryRun flag is set.');
}
