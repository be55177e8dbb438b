/**
 * APIs Kubernetes removed, by the minor that stopped serving them (the Kubernetes "Deprecated API Migration Guide",
 * kubernetes.io/docs/reference/using-api/deprecation-guide). `kinds` empty: every kind of that group/version.
 */
export interface RemovedApi {
  apiVersion: string;
  kinds: string[];
  removedIn: string;
  replacement: string;
}

export const REMOVED_API_TABLE: RemovedApi[] = [
  { apiVersion: 'extensions/v1beta1', kinds: ['Deployment', 'DaemonSet', 'ReplicaSet'], removedIn: '1.16', replacement: 'apps/v1' },
  { apiVersion: 'extensions/v1beta1', kinds: ['NetworkPolicy'], removedIn: '1.16', replacement: 'networking.k8s.io/v1' },
  { apiVersion: 'extensions/v1beta1', kinds: ['PodSecurityPolicy'], removedIn: '1.16', replacement: 'policy/v1beta1 (itself removed in 1.25)' },
  { apiVersion: 'apps/v1beta1', kinds: [], removedIn: '1.16', replacement: 'apps/v1' },
  { apiVersion: 'apps/v1beta2', kinds: [], removedIn: '1.16', replacement: 'apps/v1' },
  { apiVersion: 'extensions/v1beta1', kinds: ['Ingress'], removedIn: '1.22', replacement: 'networking.k8s.io/v1' },
  { apiVersion: 'networking.k8s.io/v1beta1', kinds: [], removedIn: '1.22', replacement: 'networking.k8s.io/v1' },
  { apiVersion: 'admissionregistration.k8s.io/v1beta1', kinds: [], removedIn: '1.22', replacement: 'admissionregistration.k8s.io/v1' },
  { apiVersion: 'apiextensions.k8s.io/v1beta1', kinds: [], removedIn: '1.22', replacement: 'apiextensions.k8s.io/v1' },
  { apiVersion: 'apiregistration.k8s.io/v1beta1', kinds: [], removedIn: '1.22', replacement: 'apiregistration.k8s.io/v1' },
  { apiVersion: 'authentication.k8s.io/v1beta1', kinds: [], removedIn: '1.22', replacement: 'authentication.k8s.io/v1' },
  { apiVersion: 'authorization.k8s.io/v1beta1', kinds: [], removedIn: '1.22', replacement: 'authorization.k8s.io/v1' },
  { apiVersion: 'certificates.k8s.io/v1beta1', kinds: [], removedIn: '1.22', replacement: 'certificates.k8s.io/v1' },
  { apiVersion: 'coordination.k8s.io/v1beta1', kinds: [], removedIn: '1.22', replacement: 'coordination.k8s.io/v1' },
  { apiVersion: 'rbac.authorization.k8s.io/v1beta1', kinds: [], removedIn: '1.22', replacement: 'rbac.authorization.k8s.io/v1' },
  { apiVersion: 'scheduling.k8s.io/v1beta1', kinds: [], removedIn: '1.22', replacement: 'scheduling.k8s.io/v1' },
  { apiVersion: 'storage.k8s.io/v1beta1', kinds: ['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment'], removedIn: '1.22', replacement: 'storage.k8s.io/v1' },
  { apiVersion: 'batch/v1beta1', kinds: ['CronJob'], removedIn: '1.25', replacement: 'batch/v1' },
  { apiVersion: 'discovery.k8s.io/v1beta1', kinds: [], removedIn: '1.25', replacement: 'discovery.k8s.io/v1' },
  { apiVersion: 'events.k8s.io/v1beta1', kinds: [], removedIn: '1.25', replacement: 'events.k8s.io/v1' },
  { apiVersion: 'autoscaling/v2beta1', kinds: [], removedIn: '1.25', replacement: 'autoscaling/v2' },
  { apiVersion: 'policy/v1beta1', kinds: ['PodDisruptionBudget'], removedIn: '1.25', replacement: 'policy/v1' },
  { apiVersion: 'policy/v1beta1', kinds: ['PodSecurityPolicy'], removedIn: '1.25', replacement: 'Pod Security Admission (no replacement kind)' },
  { apiVersion: 'node.k8s.io/v1beta1', kinds: [], removedIn: '1.25', replacement: 'node.k8s.io/v1' },
  { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta1', kinds: [], removedIn: '1.26', replacement: 'flowcontrol.apiserver.k8s.io/v1' },
  { apiVersion: 'autoscaling/v2beta2', kinds: [], removedIn: '1.26', replacement: 'autoscaling/v2' },
  { apiVersion: 'storage.k8s.io/v1beta1', kinds: ['CSIStorageCapacity'], removedIn: '1.27', replacement: 'storage.k8s.io/v1' },
  { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2', kinds: [], removedIn: '1.29', replacement: 'flowcontrol.apiserver.k8s.io/v1' },
  { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta3', kinds: [], removedIn: '1.32', replacement: 'flowcontrol.apiserver.k8s.io/v1' },
];

export function removedApiFor(apiVersion: string, kind: string): RemovedApi | undefined {
  return REMOVED_API_TABLE.find((api) => api.apiVersion === apiVersion && (api.kinds.length === 0 || api.kinds.includes(kind)));
}
