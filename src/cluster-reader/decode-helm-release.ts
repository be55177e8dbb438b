import { gunzipSync } from 'node:zlib';
import type { KubeObject } from '../ports/kube-port.js';
import type { HelmRelease } from '../planning/cluster-snapshot.js';

/**
 * Helm v3 keeps each revision of a release in a Secret of type `helm.sh/release.v1` named
 * `sh.helm.release.v1.<release>.v<revision>` (labels owner=helm, name, version, status). Its `data.release` is the
 * release record base64-encoded twice (once by Helm, once by the Secret's own encoding), gzipped inside: Secret
 * base64 → Helm base64 → gzip → JSON {name, namespace, version, info.status, chart.metadata, manifest}.
 * Source: helm/pkg/storage/driver/util.go (encodeRelease / decodeRelease).
 */
const GZIP_MAGIC = [0x1f, 0x8b];

export function decodeHelmReleaseData(data: string): unknown {
  const helmEncoded = Buffer.from(data, 'base64').toString('utf8');
  let bytes = Buffer.from(helmEncoded, 'base64');
  if (bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1]) bytes = gunzipSync(bytes);
  return JSON.parse(bytes.toString('utf8'));
}

function toRelease(secret: KubeObject): HelmRelease {
  const record = decodeHelmReleaseData(String((secret as { data?: Record<string, string> }).data?.release ?? '')) as {
    name?: string;
    namespace?: string;
    version?: number;
    info?: { status?: string };
    chart?: { metadata?: { name?: string; version?: string; kubeVersion?: string; appVersion?: string } };
    manifest?: string;
  };
  const meta = record.chart?.metadata ?? {};
  return {
    name: record.name ?? secret.metadata.labels?.name ?? secret.metadata.name,
    namespace: record.namespace ?? secret.metadata.namespace ?? 'default',
    revision: Number(record.version ?? secret.metadata.labels?.version ?? 0),
    status: record.info?.status ?? secret.metadata.labels?.status ?? 'unknown',
    chart: { name: meta.name ?? 'unknown', version: meta.version ?? 'unknown', ...(meta.kubeVersion ? { kubeVersion: meta.kubeVersion } : {}), ...(meta.appVersion ? { appVersion: meta.appVersion } : {}) },
    manifest: record.manifest ?? '',
  };
}

/**
 * The newest revision of each release (what is deployed now). A secret that does not decode is reported by name in
 * `unreadable` rather than failing the whole read.
 */
export function decodeHelmReleases(secrets: KubeObject[]): { releases: HelmRelease[]; unreadable: string[] } {
  const newest = new Map<string, HelmRelease>();
  const unreadable: string[] = [];
  for (const secret of secrets) {
    if (secret.type !== 'helm.sh/release.v1' && !secret.metadata.name.startsWith('sh.helm.release.v1.')) continue;
    try {
      const release = toRelease(secret);
      const key = `${release.namespace}/${release.name}`;
      if ((newest.get(key)?.revision ?? -1) < release.revision) newest.set(key, release);
    } catch (error) {
      unreadable.push(`${secret.metadata.namespace ?? 'default'}/${secret.metadata.name} (${(error as Error).message})`);
    }
  }
  return { releases: [...newest.values()].sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`)), unreadable };
}
