/**
 * An AWS API error as the simulator answers it: HTTP status plus the error type the SDKs and the aws CLI key on
 * (EKS: header `x-amzn-errortype` and body `{message}`; SSM: body `__type`; EC2: XML `<Code>`).
 */
export class AwsApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    /** Extra body fields EKS adds (clusterName, nodegroupName, addonName, …). */
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
    this.name = type;
  }
}

export const invalidParameter = (message: string, fields?: Record<string, string>) =>
  new AwsApiError(400, 'InvalidParameterException', message, fields);
export const invalidRequest = (message: string, fields?: Record<string, string>) =>
  new AwsApiError(400, 'InvalidRequestException', message, fields);
export const invalidState = (message: string, fields?: Record<string, string>) =>
  new AwsApiError(400, 'InvalidStateException', message, fields);
export const notFound = (message: string, fields?: Record<string, string>) =>
  new AwsApiError(404, 'ResourceNotFoundException', message, fields);
export const resourceInUse = (message: string, fields?: Record<string, string>) =>
  new AwsApiError(409, 'ResourceInUseException', message, fields);
export const throttling = () => new AwsApiError(429, 'ThrottlingException', 'Rate exceeded');
export const serverError = (status: 500 | 503) =>
  status === 500
    ? new AwsApiError(500, 'ServerException', 'An internal error occurred. Try again later.')
    : new AwsApiError(503, 'ServiceUnavailableException', 'The service is unavailable. Try again later.');

/**
 * An injected throttle (POST /_sim/faults) as each service says it: EKS 429 ThrottlingException, SSM 400
 * ThrottlingException, EC2 503 RequestLimitExceeded, Auto Scaling and STS 400 Throttling — every one a name the
 * SDK's retry strategy knows as throttling.
 */
export function injectedThrottle(service: string): AwsApiError {
  if (service === 'ec2') return new AwsApiError(503, 'RequestLimitExceeded', 'Request limit exceeded.');
  if (service === 'autoscaling' || service === 'sts' || service === 'monitoring') return new AwsApiError(400, 'Throttling', 'Rate exceeded');
  if (service === 'ssm') return new AwsApiError(400, 'ThrottlingException', 'Rate exceeded');
  return throttling();
}

/**
 * An injected 5xx as each service names it: EKS ServerException / ServiceUnavailableException, SSM
 * InternalServerError, EC2 InternalError / Unavailable, Auto Scaling and STS InternalFailure / ServiceUnavailable
 * (the AWS common errors). The SDK retries them by their status.
 */
export function injectedServerError(service: string, status: 500 | 503): AwsApiError {
  const message = status === 500 ? 'An internal error occurred. Try again later.' : 'The service is unavailable. Try again later.';
  if (service === 'ec2') return new AwsApiError(status, status === 500 ? 'InternalError' : 'Unavailable', status === 500 ? 'An internal error has occurred.' : 'The server is overloaded and can\'t handle the request.');
  if (service === 'ssm') return new AwsApiError(status, status === 500 ? 'InternalServerError' : 'ServiceUnavailable', message);
  if (service === 'autoscaling' || service === 'sts' || service === 'monitoring') return new AwsApiError(status, status === 500 ? 'InternalFailure' : 'ServiceUnavailable', message);
  return serverError(status);
}
