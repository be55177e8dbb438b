import semver from 'semver';
import { parseAllDocuments } from 'yaml';
import type { ClusterSnapshot, HelmRelease } from '../cluster-snapshot.js';
import type { Finding } from '../../ports/finding.js';
import { removedApiFor } from '../removed-apis.js';
import { minorAtLeast, upgradePath } from '../upgrade-path.js';

/**
 * HLM001–HLM002 — Helm v3 releases (opt-in: `checks.helmReleases`, read from their release secrets). HLM001: the
 * manifest Helm last applied uses an API removed at or before the target — an error when the upgrade removes it
 * (the objects stay, but the next `helm upgrade` fails to map them), a warning when it is already gone. HLM002: the
 * chart's `kubeVersion` constraint excludes the target, so `helm upgrade` refuses to render it afterwards.
 */
function manifestObjects(manifest: string): Array<{ apiVersion: string; kind: string; name: string; namespace?: string }> {
  const objects: Array<{ apiVersion: string; kind: string; name: string; namespace?: string }> = [];
  for (const doc of parseAllDocuments(manifest)) {
    const value = doc.toJS() as { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string } } | null;
    if (!value?.apiVersion || !value.kind) continue;
    objects.push({ apiVersion: value.apiVersion, kind: value.kind, name: value.metadata?.name ?? '?', ...(value.metadata?.namespace ? { namespace: value.metadata.namespace } : {}) });
  }
  return objects;
}

export function checkHelmReleases(snapshot: ClusterSnapshot, target: string): Finding[] {
  const path = upgradePath(snapshot, target);
  if (!path || !snapshot.kube.helmReleases?.ok) return [];
  const findings: Finding[] = [];
  for (const release of snapshot.kube.helmReleases.value) {
    findings.push(...removedApiFindings(release, path.from, path.to));
    const constraint = release.chart.kubeVersion;
    if (constraint && semver.validRange(constraint) && !semver.satisfies(`${path.to}.0`, constraint, { includePrerelease: true })) {
      findings.push({
        code: 'HLM002',
        severity: 'warning',
        title: `Helm release ${release.namespace}/${release.name} (chart ${release.chart.name} ${release.chart.version}) requires Kubernetes "${constraint}", which excludes ${path.to}: helm upgrade will refuse it afterwards`,
        resources: [`helmrelease/${release.namespace}/${release.name}`],
        remedy: `Move the release to a chart version whose kubeVersion allows ${path.to} (helm search repo ${release.chart.name} --versions), before or right after the upgrade.`,
      });
    }
  }
  return findings;
}

function removedApiFindings(release: HelmRelease, from: string, to: string): Finding[] {
  let objects;
  try {
    objects = manifestObjects(release.manifest);
  } catch {
    return [];
  }
  const byApi = new Map<string, { removedIn: string; replacement: string; objects: string[] }>();
  for (const object of objects) {
    const removed = removedApiFor(object.apiVersion, object.kind);
    if (!removed || !minorAtLeast(to, removed.removedIn)) continue;
    const key = `${object.apiVersion} ${object.kind}`;
    const entry = byApi.get(key) ?? { removedIn: removed.removedIn, replacement: removed.replacement, objects: [] };
    entry.objects.push(`${object.kind.toLowerCase()}/${object.namespace ?? release.namespace}/${object.name}`);
    byApi.set(key, entry);
  }
  return [...byApi].map(([api, entry]) => {
    const alreadyGone = minorAtLeast(from, entry.removedIn);
    return {
      code: 'HLM001',
      severity: alreadyGone ? ('warning' as const) : ('error' as const),
      title: `Helm release ${release.namespace}/${release.name} (chart ${release.chart.name} ${release.chart.version}, revision ${release.revision}) was applied with ${api}, which ${alreadyGone ? 'was' : 'is'} removed in ${entry.removedIn}; use ${entry.replacement}`,
      resources: [`helmrelease/${release.namespace}/${release.name}`, ...entry.objects],
      remedy: `Upgrade the release to a chart that renders ${entry.replacement}${alreadyGone ? '; to unblock helm upgrade first, rewrite the stored manifest with the helm-mapkubeapis plugin (helm mapkubeapis ' + release.name + ' -n ' + release.namespace + ')' : `, before the control plane reaches ${entry.removedIn}`}.`,
    };
  });
}
