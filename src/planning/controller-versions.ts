import semver from 'semver';
import type { KubeObject } from '../ports/kube-port.js';

/**
 * Version-bound controllers found by their container image, and the oldest controller version known to support
 * each Kubernetes minor, as the projects publish it. Only published facts are listed: a minor missing from a
 * table means "no requirement known", not "unsupported".
 *
 * - Karpenter: karpenter.sh "Compatibility" matrix (1.23–1.29) and the releases' supported ranges (endoflife.date,
 *   from the Karpenter release notes: 1.0.5 for 1.31, 1.2 for 1.32, 1.5 for 1.33, 1.6 for 1.34, 1.9 for 1.35).
 * - ingress-nginx: the "Supported Versions table" of kubernetes/ingress-nginx's README.
 * - AWS Load Balancer Controller: v2.4.0 release notes (networking.k8s.io/v1 Ingress, needed from 1.22 when v1beta1
 *   was removed). AWS publishes no per-minor table beyond that.
 */
export interface ControllerImage {
  namespace: string;
  workload: string;
  kind: string;
  image: string;
  /** The tag as a semantic version (v1.30.2 → 1.30.2), when it is one. */
  version?: string;
}

export interface KnownController {
  id: 'karpenter' | 'ingress-nginx' | 'aws-load-balancer-controller' | 'cluster-autoscaler';
  name: string;
  /** Matches the image repository (not the registry or the tag). */
  image: RegExp;
  /** Kubernetes minor → oldest controller version that supports it. */
  minimumFor: Record<string, string>;
  upgrade: string;
}

export const KNOWN_CONTROLLERS: KnownController[] = [
  {
    id: 'karpenter',
    name: 'Karpenter',
    image: /(^|\/)karpenter\/controller$|(^|\/)karpenter$/,
    minimumFor: {
      '1.23': '0.21.0', '1.24': '0.21.0', '1.25': '0.25.0', '1.26': '0.28.0', '1.27': '0.28.0', '1.28': '0.31.0', '1.29': '0.34.0',
      '1.30': '0.37.0', '1.31': '1.0.5', '1.32': '1.2.0', '1.33': '1.5.0', '1.34': '1.6.0', '1.35': '1.9.0',
    },
    upgrade: 'helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter --version <version> (CRDs first: karpenter-crd), see karpenter.sh/docs/upgrading',
  },
  {
    id: 'ingress-nginx',
    name: 'ingress-nginx',
    image: /(^|\/)ingress-nginx\/controller$/,
    minimumFor: { '1.24': '1.3.0', '1.25': '1.4.0', '1.26': '1.6.0', '1.27': '1.8.0', '1.28': '1.9.0', '1.29': '1.10.0', '1.30': '1.11.0', '1.31': '1.12.0', '1.32': '1.12.0' },
    upgrade: 'helm upgrade ingress-nginx ingress-nginx/ingress-nginx --version <chart for that controller version>',
  },
  {
    id: 'aws-load-balancer-controller',
    name: 'AWS Load Balancer Controller',
    image: /(^|\/)(amazon\/)?aws-load-balancer-controller$|(^|\/)aws-alb-ingress-controller$/,
    minimumFor: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`1.${22 + i}`, '2.4.0'])),
    upgrade: 'helm upgrade aws-load-balancer-controller eks/aws-load-balancer-controller -n kube-system (apply the new CRDs first)',
  },
  {
    id: 'cluster-autoscaler',
    name: 'cluster-autoscaler',
    image: /(^|\/)cluster-autoscaler$/,
    // Checked by minor equality instead (CMP001): each cluster-autoscaler minor is built for the same Kubernetes minor.
    minimumFor: {},
    upgrade: 'set the image to registry.k8s.io/autoscaling/cluster-autoscaler:v<target>.x (the chart\'s image.tag)',
  },
];

/** "registry/ns/name:v1.2.3@sha256…" → { repository: "ns/name", tag: "v1.2.3" } (the registry host dropped). */
export function splitImage(image: string): { repository: string; tag?: string } {
  const withoutDigest = image.split('@')[0];
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  const tag = colon > slash ? withoutDigest.slice(colon + 1) : undefined;
  const path = colon > slash ? withoutDigest.slice(0, colon) : withoutDigest;
  const parts = path.split('/');
  // A first part with a dot or a port is a registry host (public.ecr.aws, registry.k8s.io, 602401143452.dkr.ecr…).
  const repository = parts.length > 1 && /[.:]/.test(parts[0]) ? parts.slice(1).join('/') : path;
  return { repository, tag };
}

/** Every Deployment / DaemonSet container whose image is one of the known controllers. */
export function findControllers(workloads: Array<{ kind: string; objects: KubeObject[] }>): Array<{ controller: KnownController; found: ControllerImage }> {
  const found: Array<{ controller: KnownController; found: ControllerImage }> = [];
  for (const { kind, objects } of workloads) {
    for (const object of objects) {
      for (const container of object.spec?.template?.spec?.containers ?? []) {
        const image = String(container.image ?? '');
        const { repository, tag } = splitImage(image);
        const controller = KNOWN_CONTROLLERS.find((known) => known.image.test(repository));
        if (!controller) continue;
        const version = tag ? semver.coerce(tag)?.version : undefined;
        found.push({ controller, found: { namespace: object.metadata.namespace ?? 'default', workload: object.metadata.name, kind, image, ...(version ? { version } : {}) } });
      }
    }
  }
  return found;
}

/** The first minor on the way whose published minimum the version is below, with that minimum. */
export function firstUnsupported(controller: KnownController, version: string, minors: string[]): { minor: string; minimum: string } | undefined {
  for (const minor of minors) {
    const minimum = controller.minimumFor[minor];
    if (minimum && semver.lt(version, minimum)) return { minor, minimum };
  }
  return undefined;
}
