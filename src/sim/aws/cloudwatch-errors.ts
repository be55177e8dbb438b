import type { AwsApiError } from './aws-error.js';

/**
 * A CloudWatch error on the JSON 1.0 wire. The service is awsQueryCompatible: besides the JSON body's `__type` (the
 * error shape's id), it sends `x-amzn-query-error: <query code>;<Sender|Receiver>`, and both @aws-sdk/client-cloudwatch
 * (ProtocolLib.setQueryCompatError) and botocore (_do_query_compatible_error_parse) name the error by that code —
 * the one the CLI prints: "An error occurred (ResourceNotFound) when calling the SetAlarmState operation: …".
 * Shape ids whose name differs from the code are those of the service model (LimitExceeded → LimitExceededFault …).
 */
const SHAPE_OF_CODE: Record<string, string> = {
  LimitExceeded: 'LimitExceededFault',
  InvalidFormat: 'InvalidFormatFault',
  InvalidParameterCombination: 'InvalidParameterCombinationException',
  InvalidParameterValue: 'InvalidParameterValueException',
  MissingParameter: 'MissingRequiredParameterException',
  InternalServiceError: 'InternalServiceFault',
};

export function cloudWatchErrorHeaders(error: AwsApiError): { body: Record<string, string>; headers: Record<string, string> } {
  const shape = SHAPE_OF_CODE[error.type] ?? error.type;
  return {
    body: { __type: `com.amazonaws.cloudwatch#${shape}`, message: error.message },
    headers: { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-query-error': `${error.type};${error.status >= 500 ? 'Receiver' : 'Sender'}` },
  };
}
