/** The simulator's Kubernetes API: store, HTTP handler and built-in controllers (see README of each file). */
export { createSimKubeStore, type SimKubeStoreImpl, type SimKubeStoreOptions, type HistoryRecord } from './create-sim-kube-store.js';
export { handleKubeRequest } from './handle-kube-request.js';
export { startKubeControllers } from './start-kube-controllers.js';
export { closeWatches } from './serve-watch.js';
export { SimKubeError, type SimKubeStore, type StoreEvent, type EvictionResult } from './kube-store.js';
export { makeNode, type NodeSpecInput } from './make-node.js';
