import { createHash } from 'node:crypto';

/**
 * How `snapshot --anonymize` hides a cluster's names (issue 23): every name and label value becomes a stable hash,
 * the same wherever it appears — the object that bears it and every selector, affinity, toleration, PDB selector,
 * reference and tag that points at it — so the twin schedules exactly like the original. The builder hashes names
 * where it copies them (`hide`), and the anonymizer remembers each one; `everywhere` then hashes every other
 * occurrence of a remembered original in the finished scenario, so a reference the builder did not know of cannot
 * keep the original name. Images become `image-<hash>:<tag>`. What stays: the names Kubernetes, EKS and Karpenter
 * give meaning to (system namespaces, the EKS add-ons' own objects and the images of the controllers the checks
 * know), numbers, booleans and the values of fields that are never names (kinds, operators, effects, sizes…).
 */
export interface Anonymizer {
  hide(name: string): string;
  image(image: string): string;
  /** The scenario with every remembered original hashed wherever it still appears. */
  everywhere<T>(value: T): T;
}

/** Names with a meaning of their own: namespaces, EKS add-on objects the preflight checks look for, scheduling words. */
const PUBLIC = new Set([
  'default', 'kube-system', 'kube-public', 'kube-node-lease', 'true', 'false', '',
  'kube-proxy', 'aws-node', 'coredns', 'kube-dns', 'ebs-csi-controller', 'ebs-csi-node', 'karpenter',
  'amd64', 'arm64', 'linux', 'windows', 'on-demand', 'spot', 'fargate', 'ec2',
]);

/** Images of EKS's own registries and of the controllers src/planning/controller-versions.ts recognises. */
const PUBLIC_IMAGE = /^(\d+\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com\/(eks\/|amazon-k8s-cni|amazon\/)|public\.ecr\.aws\/(eks|karpenter)\/)|(^|\/)(karpenter\/controller|ingress-nginx\/controller|aws-load-balancer-controller|cluster-autoscaler)(:|@|$)/;

/** Fields whose values are never names (a label value that happens to read "NoSchedule" must not change these). */
const NOT_NAMES = new Set([
  'kind', 'apiVersion', 'operator', 'effect', 'protocol', 'key', 'topologyKey', 'type', 'imagePullPolicy', 'restartPolicy',
  'dnsPolicy', 'whenUnsatisfiable', 'amiType', 'capacityType', 'instanceType', 'instanceTypes', 'region', 'zone', 'zones',
  'version', 'platformVersion', 'family', 'arch', 'variant', 'cidr', 'imageId', 'id', 'storageClassName', 'accessModes',
  'usage', 'replacedWith', 'removedIn', 'startServingReplacementVersion', 'supportType', 'calendarAsOf', 'amiFamily',
  'consolidationPolicy', 'consolidateAfter', 'expireAfter', 'minAvailable', 'maxUnavailable', 'cpu', 'memory', 'storage',
  'group', 'mountPath', 'path', 'scheme', 'volumeName', 'userAgent',
]);

/** Fields holding maps of label keys to values (selectors, tags). */
const LABEL_MAPS = new Set(['labels', 'matchLabels', 'nodeSelector', 'selector', 'tags']);

export function createAnonymizer(): Anonymizer {
  const originals = new Map<string, string>();
  const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 10);
  const hide = (s: string): string => {
    if (PUBLIC.has(s) || /^\d+$/.test(s)) return s;
    const hidden = `x${hash(s)}`;
    originals.set(s, hidden);
    return hidden;
  };
  const image = (ref: string): string => {
    if (PUBLIC_IMAGE.test(ref)) return ref;
    // "registry/ns/name:tag@sha256:…": the repository hashed, the tag kept (verify compares tags before and after).
    const at = ref.indexOf('@');
    const named = at >= 0 ? ref.slice(0, at) : ref;
    const colon = named.lastIndexOf(':');
    const tag = colon > named.lastIndexOf('/') ? named.slice(colon + 1) : undefined;
    const repository = tag === undefined ? named : named.slice(0, colon);
    return `image-${hash(repository)}${tag ? `:${tag}` : ''}`;
  };
  // In a map of labels (or tags) every key is a label key, so `type: OrdersMNG` is a value to hash.
  const walk = (value: unknown, key?: string, labelMap = false): unknown => {
    if (typeof value === 'string') {
      if (key === 'image' && !labelMap) return image(value);
      if (key && !labelMap && NOT_NAMES.has(key)) return value;
      return originals.get(value) ?? value;
    }
    if (Array.isArray(value)) return value.map((item) => walk(item, key));
    if (value && typeof value === 'object') {
      const labels = key !== undefined && LABEL_MAPS.has(key);
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k, labels)]));
    }
    return value;
  };
  return { hide, image, everywhere: <T>(value: T) => walk(value) as T };
}

/** For a twin that keeps its names: nothing changes. */
export const KEEP_NAMES: Anonymizer = { hide: (s) => s, image: (s) => s, everywhere: (v) => v };
