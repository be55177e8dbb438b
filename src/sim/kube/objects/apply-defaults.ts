import type { KubeObject } from '../../../kube-types/kube-object.js';

/**
 * The defaults the apiserver fills in on create, so objects read back as from a real cluster (and controllers
 * can rely on spec.replicas, the rolling-update strategy, a pod's phase and scheduler name).
 */
export function applyDefaults(resource: string, object: KubeObject): void {
  switch (resource) {
    case 'pods': {
      const spec = (object.spec ??= {});
      spec.schedulerName ??= 'default-scheduler';
      spec.restartPolicy ??= 'Always';
      spec.terminationGracePeriodSeconds ??= 30;
      spec.dnsPolicy ??= 'ClusterFirst';
      spec.containers ??= [];
      // DefaultTolerationSeconds admission: every pod tolerates a NotReady/unreachable node for 5 minutes.
      const tolerations: any[] = (spec.tolerations ??= []);
      for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
        if (!tolerations.some((t) => t.key === key && (t.effect === 'NoExecute' || !t.effect))) {
          tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
        }
      }
      const status = (object.status ??= {});
      status.phase ??= 'Pending';
      status.qosClass ??= qosClass(spec.containers);
      break;
    }
    case 'deployments': {
      const spec = (object.spec ??= {});
      spec.replicas ??= 1;
      spec.revisionHistoryLimit ??= 10;
      spec.progressDeadlineSeconds ??= 600;
      spec.strategy ??= { type: 'RollingUpdate' };
      if (spec.strategy.type === 'RollingUpdate') {
        spec.strategy.rollingUpdate = { maxSurge: '25%', maxUnavailable: '25%', ...(spec.strategy.rollingUpdate ?? {}) };
      }
      break;
    }
    case 'statefulsets': {
      const spec = (object.spec ??= {});
      spec.replicas ??= 1;
      spec.podManagementPolicy ??= 'OrderedReady';
      spec.updateStrategy ??= { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
      spec.revisionHistoryLimit ??= 10;
      break;
    }
    case 'replicasets':
      (object.spec ??= {}).replicas ??= 1;
      break;
    case 'namespaces':
      object.metadata.labels = { ...(object.metadata.labels ?? {}), 'kubernetes.io/metadata.name': object.metadata.name };
      (object.spec ??= {}).finalizers ??= ['kubernetes'];
      (object.status ??= {}).phase ??= 'Active';
      break;
    case 'persistentvolumeclaims':
      (object.spec ??= {}).volumeMode ??= 'Filesystem';
      (object.status ??= {}).phase ??= 'Pending';
      break;
    case 'services': {
      const spec = (object.spec ??= {});
      spec.type ??= 'ClusterIP';
      spec.sessionAffinity ??= 'None';
      break;
    }
  }
}

function qosClass(containers: any[]): string {
  const resources = containers.map((c) => c.resources ?? {});
  if (resources.every((r) => !r.requests && !r.limits)) return 'BestEffort';
  const guaranteed = resources.every(
    (r) => r.limits?.cpu && r.limits?.memory && (!r.requests || (r.requests.cpu === r.limits.cpu && r.requests.memory === r.limits.memory)),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
