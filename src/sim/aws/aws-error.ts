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
export const notFound = (message: string, fields?: Record<string, string>) =>
  new AwsApiError(404, 'ResourceNotFoundException', message, fields);
export const resourceInUse = (message: string, fields?: Record<string, string>) =>
  new AwsApiError(409, 'ResourceInUseException', message, fields);
export const throttling = () => new AwsApiError(429, 'ThrottlingException', 'Rate exceeded');
export const serverError = (status: 500 | 503) =>
  status === 500
    ? new AwsApiError(500, 'ServerException', 'An internal error occurred. Try again later.')
    : new AwsApiError(503, 'ServiceUnavailableException', 'The service is unavailable. Try again later.');
