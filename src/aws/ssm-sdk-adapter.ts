import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { SsmPort, SsmPortFactory } from '../ports/aws/ssm-port.js';
import { clientCache, instrumented, sdkClientConfig, type AwsAdapterOptions } from './aws-client-config.js';

/**
 * SsmPort over @aws-sdk/client-ssm, for the public EKS-optimized AMI parameters
 * (/aws/service/eks/optimized-ami/<ver>/…/image_id). A missing parameter is an answer, not a failure: it is how
 * AWS says "no AMI of this family for this version" (AL2 stops at 1.32), so it becomes undefined. Every other
 * error passes through unchanged for the caller (and describeAwsError) to explain.
 */
export function createSsmPortFactory(opts: AwsAdapterOptions = {}): SsmPortFactory {
  return clientCache((target) => ssmPort(instrumented(new SSMClient(sdkClientConfig('ssm', target, opts)), 'ssm', opts.metrics)));
}

function ssmPort(client: SSMClient): SsmPort {
  return {
    async getParameter(name) {
      try {
        const { Parameter } = await client.send(new GetParameterCommand({ Name: name }));
        return Parameter?.Value;
      } catch (error) {
        if ((error as { name?: string } | null)?.name === 'ParameterNotFound') return undefined;
        throw error;
      }
    },
  };
}
