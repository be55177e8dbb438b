import { ALL_VERBS, apiGroups, minorOf, RESOURCES, servedVersions, type ResourceType } from '../objects/resource-registry.js';

/**
 * The discovery documents kubectl reads before anything else (GET /version, /api, /apis, /api/v1,
 * /apis/{group}/{version}). kubectl 1.32 asks for aggregated discovery first and accepts these legacy forms;
 * `kubectl drain` needs pods/eviction listed under /api/v1.
 */

export function versionInfo(gitVersion: string): Record<string, string> {
  const match = /^v?(\d+)\.(\d+)/.exec(gitVersion);
  return {
    major: match?.[1] ?? '1',
    // EKS reports a "+" after the minor (its builds carry patches on top of upstream).
    minor: `${match?.[2] ?? '0'}+`,
    gitVersion,
    gitCommit: '5f9d4d6b0d1b3b4c2e8c2a1f0e4c6c3f1a2b3c4d',
    gitTreeState: 'clean',
    buildDate: '2025-06-20T21:55:32Z',
    goVersion: 'go1.23.10',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupEntry(name: string, versions: string[]) {
  return {
    name,
    versions: versions.map((version) => ({ groupVersion: `${name}/${version}`, version })),
    preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
  };
}

export function apiGroupList(gitVersion: string): Record<string, unknown> {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: apiGroups(minorOf(gitVersion)).map((g) => groupEntry(g.name, g.versions)),
  };
}

export function apiGroup(gitVersion: string, group: string): Record<string, unknown> | undefined {
  const found = apiGroups(minorOf(gitVersion)).find((g) => g.name === group);
  return found ? { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(found.name, found.versions) } : undefined;
}

function resourceEntries(type: ResourceType): Array<Record<string, unknown>> {
  const main = {
    name: type.plural,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: ALL_VERBS,
    ...(type.shortNames ? { shortNames: type.shortNames } : {}),
    ...(type.categories ? { categories: type.categories } : {}),
    storageVersionHash: Buffer.from(`${type.group}/${type.version}/${type.kind}`).toString('base64').slice(0, 11),
  };
  const subs = type.subresources.map((s) => ({
    name: `${type.plural}/${s.name}`,
    singularName: '',
    namespaced: type.namespaced,
    ...(s.group !== undefined ? { group: s.group } : {}),
    ...(s.version !== undefined ? { version: s.version } : {}),
    kind: s.kind,
    verbs: s.verbs,
  }));
  return [main, ...subs];
}

/** APIResourceList for one group/version, or undefined when this cluster does not serve it. */
export function apiResourceList(gitVersion: string, group: string, version: string): Record<string, unknown> | undefined {
  const minor = minorOf(gitVersion);
  const types = RESOURCES.filter((t) => t.group === group && servedVersions(t, minor).includes(version));
  if (types.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    ...(group ? { apiVersion: 'v1' } : {}),
    groupVersion: group ? `${group}/${version}` : version,
    resources: types.flatMap(resourceEntries),
  };
}
