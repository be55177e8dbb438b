/**
 * The composition entry points share (src/wiring/ is entry-point tier: only entry points and tests import it).
 * A rehearsal's engine runs against the twin it starts, so its SDK and Kubernetes adapters can only be built once
 * the twin's URL is known: this is the factory the entry point hands the rehearsal for that.
 */

import { createAutoScalingPortFactory } from '../aws/autoscaling-sdk-adapter.js';
import { createEc2PortFactory } from '../aws/ec2-sdk-adapter.js';
import { createEksPortFactory } from '../aws/eks-sdk-adapter.js';
import { createSsmPortFactory } from '../aws/ssm-sdk-adapter.js';
import { createKubePortFactory } from '../kube/client-node-adapter.js';
import type { TwinPortsFactory } from '../../jobs/rehearsal/rehearse-upgrade.js';

/** What the adapters sign the twin's requests with: never a real account's credentials. */
const TWIN_CREDENTIALS = { accessKeyId: 'rehearsal', secretAccessKey: 'rehearsal' };

export const twinPorts: TwinPortsFactory = ({ url, clock }) => {
  const aws = { endpoint: url, credentials: TWIN_CREDENTIALS, maxAttempts: 3 };
  const eks = createEksPortFactory(aws);
  return {
    eks,
    kube: createKubePortFactory({ eks, credentials: TWIN_CREDENTIALS, clock }),
    ssm: createSsmPortFactory(aws),
    ec2: createEc2PortFactory(aws),
    autoScaling: createAutoScalingPortFactory(aws),
  };
};
