/**
 * The simulator's Kubernetes API: an in-memory store per cluster, the HTTP handler that serves it to kubectl and
 * client-node, and the built-in controllers (scheduler, kubelet, workloads, PDBs, garbage collection).
 */
export { createSimKubeStore, type SimKubeStoreImpl, type SimKubeStoreOptions, type HistoryRecord } from './create-sim-kube-store.js';
export { handleKubeRequest } from './api/handle-kube-request.js';
export { startKubeControllers } from './controllers/start-kube-controllers.js';
export { closeWatches } from './api/serve-watch.js';
export { startStandaloneKubeServer, type StandaloneKubeServer } from './standalone-kube-server.js';
export { appendContainerLog, appendDeploymentLog } from './container-logs.js';
export { SimKubeError, type SimKubeStore, type StoreEvent, type EvictionResult } from './kube-store.js';
export { makeNode, type NodeSpecInput } from './controllers/make-node.js';
