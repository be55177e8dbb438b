import type { SimClock } from '../../sim-clock.js';
import type { SimKubeStoreImpl } from '../create-sim-kube-store.js';
import { startDaemonSetController } from './daemonset-controller.js';
import { startDeploymentController } from './deployment-controller.js';
import { startReplicaSetController } from './replicaset-controller.js';
import { startGarbageCollector } from './garbage-collector.js';
import type { SimKubeStore } from '../kube-store.js';
import { startKubeletController } from './kubelet-controller.js';
import { startPdbController } from './pdb-controller.js';
import { startScheduler } from './scheduler.js';
import { startStatefulSetController } from './statefulset-controller.js';

/**
 * The built-in controllers of a simulated cluster, all timed on the simulator's clock: deployment/replicaset,
 * statefulset, daemonset, scheduler, kubelet (pod start-up, NotReady nodes, pod GC), disruption (PDB status) and
 * the garbage collector. With a manual clock nothing happens until the clock advances. Returns stop.
 */
export function startKubeControllers(store: SimKubeStore, clock: SimClock): () => void {
  const impl = store as SimKubeStoreImpl;
  if (typeof impl.subscribeRecords !== 'function') {
    throw new Error(`startKubeControllers: the store of cluster ${store.clusterName} was not made by createSimKubeStore`);
  }
  const stops = [
    startDeploymentController(impl, clock),
    startReplicaSetController(impl, clock),
    startStatefulSetController(impl, clock),
    startDaemonSetController(impl, clock),
    startScheduler(impl, clock),
    startKubeletController(impl, clock),
    startPdbController(impl, clock),
    startGarbageCollector(impl, clock),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
