import { createAutoScalingPortFactory } from '../../src/aws/autoscaling-sdk-adapter.js';
import { createEc2PortFactory } from '../../src/aws/ec2-sdk-adapter.js';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createSsmPortFactory } from '../../src/aws/ssm-sdk-adapter.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import { systemClock } from '../../src/ports/clock.js';
import type { SimServer } from '@eks-upgrade-bot/sim';
import type { SnapshotSources } from '../../src/cluster-reader/collect-snapshot.js';
import { SIM_CREDENTIALS } from '@eks-upgrade-bot/sim/kit';
import { until } from '../support/until.js';

/**
 * The read path's real adapters (EKS, EC2, SSM SDKs and client-node) pointed at a simulator over HTTP, and a wait
 * until a simulated cluster has settled (every pod bound and Running — Fargate pods take 30 simulated seconds —
 * and every PDB's status computed), so plans see the cluster a person would see.
 */
export function simSources(sim: SimServer, maxAttempts = 2): SnapshotSources {
  const options = { endpoint: sim.url, credentials: SIM_CREDENTIALS, maxAttempts };
  const eks = createEksPortFactory(options);
  return {
    eks,
    ec2: createEc2PortFactory(options),
    autoScaling: createAutoScalingPortFactory(options),
    ssm: createSsmPortFactory(options),
    kube: createKubePortFactory({ eks, credentials: SIM_CREDENTIALS }),
    clock: systemClock,
  };
}

export async function settled(sim: SimServer, cluster: string): Promise<void> {
  const store = sim.world.kube(cluster)!;
  await until(
    () => {
      const pods = store.list('pods');
      const pdbs = store.list('poddisruptionbudgets');
      return pods.length > 0 && pods.every((p) => p.spec?.nodeName && p.status?.phase === 'Running') && pdbs.every((p) => p.status?.observedGeneration !== undefined);
    },
    `${cluster} to settle`,
    { timeoutMs: 20_000 },
  );
}
