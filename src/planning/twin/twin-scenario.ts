/**
 * A cluster snapshot (the reads `plan` makes) turned into a simulator scenario: the "twin" that `eks-upgrade
 * snapshot` writes and `rehearse` runs the upgrade against. Pure: the result is a plain object in the simulator's
 * scenario schema (src/sim/scenario/scenario-schema.ts), validated by the simulator when it is loaded.
 *
 * What is kept: the cluster (version, platform version, support type, tags, subnets), managed node groups (sizes,
 * instance types, AMI type, labels, taints, zones, custom launch template image), self-managed Auto Scaling groups,
 * Fargate profiles, add-ons, the deprecated APIs the upgrade insights report, Karpenter's NodePools, EC2NodeClasses
 * and one node per NodeClaim, and the workloads (Deployments, StatefulSets, DaemonSets, standalone ReplicaSets and
 * pods, PDBs, PVCs, HPAs, Services, webhooks, ENIConfigs) with their resource requests. What is never copied:
 * Secrets, ConfigMaps, container env values and envFrom, command lines, webhook CA bundles; `last-applied-
 * configuration` keeps only the apiVersion and kind it was applied with; Helm releases keep only the chart's name,
 * version and kubeVersion constraint and the apiVersion/kind/name of each rendered object.
 *
 * What a snapshot cannot know gets documented defaults (TWIN_DEFAULTS), overridable per workload with the
 * annotations in TWIN_ANNOTATIONS (e.g. `eks-upgrade-bot/twin-ready-seconds: "45"` on a Deployment).
 * `anonymize` replaces every name (cluster, node groups, namespaces, workloads, containers, labels' and taints'
 * values, images) by a stable hash, the same wherever it appears (twin-anonymizer.ts).
 */

import { gzipSync } from 'node:zlib';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../ports/kube-port.js';
import { valueOr, type ClusterSnapshot, type HelmRelease } from '../cluster-snapshot.js';
import { createAnonymizer, KEEP_NAMES } from './twin-anonymizer.js';

/** What the snapshot cannot read, and the value the twin assumes. */
export const TWIN_DEFAULTS = {
  /** Seconds a new node takes to become Ready (EKS-optimized AMIs: 60–120 s). */
  nodeReadySeconds: 90,
  /** Minutes EKS takes for a control-plane version update (AWS quotes 8–12). */
  controlPlaneUpdateMinutes: 10,
  /** Seconds an add-on update takes to go ACTIVE. */
  addonUpdateSeconds: 60,
  /** Minutes CreateNodegroup takes (blue/green). */
  nodegroupCreateMinutes: 3,
} as const;

/** Annotations a team may put on its workloads (in the cluster or in the twin file) to override the defaults. */
export const TWIN_ANNOTATIONS = {
  /** Seconds a pod of this workload takes from start to Ready (sets a readiness probe's initialDelaySeconds). */
  readySeconds: 'eks-upgrade-bot/twin-ready-seconds',
} as const;

export interface TwinOptions {
  /** Hash names (cluster, node groups, namespaces, workloads, label values) so the twin can be shared. */
  anonymize?: boolean;
  /** The support calendar date that makes the simulator report the same support dates (see calendarAsOf). */
  calendarAsOf?: string;
  /** Scenario name (default `twin-<cluster>`). */
  name?: string;
}

const WELL_KNOWN_NODE_LABEL = /^(kubernetes\.io\/|beta\.kubernetes\.io\/|failure-domain\.|topology\.|node\.kubernetes\.io\/|eks\.amazonaws\.com\/|k8s\.io\/|karpenter\.|alpha\.eksctl\.io\/)/;
const DROPPED_ANNOTATION = /^(deployment\.kubernetes\.io\/|karpenter\.(sh|k8s\.aws)\/.*hash|meta\.helm\.sh\/|kubectl\.kubernetes\.io\/restartedAt$)/;

/** Builds the twin scenario of one cluster from its snapshot. Throws with a sentence when the cluster itself was not read. */
export function snapshotToScenario(snapshot: ClusterSnapshot, options: TwinOptions = {}): Record<string, unknown> {
  if (!snapshot.cluster.ok) throw new Error(`${snapshot.name} could not be read (${snapshot.cluster.error}); there is nothing to snapshot.`);
  const anon = options.anonymize ? createAnonymizer() : KEEP_NAMES;
  const hide = anon.hide;
  const info = snapshot.cluster.value;
  const kube = snapshot.kube;
  const nodes = valueOr(kube.nodes, []);
  const subnets = valueOr(snapshot.subnets, []);
  const zoneOf = new Map(subnets.map((s) => [s.subnetId, s.availabilityZone]));
  const clusterSubnets = subnets;

  // Creation order matters to the simulated scheduler (which node a pod lands on): keep the cluster's.
  const bornAt = (o: KubeObject | undefined) => `${o?.metadata.creationTimestamp ?? '~'}|${String(o?.metadata.resourceVersion ?? '').padStart(12, '0')}`;
  const firstNodeOf = (group: string) => nodes.filter((n) => n.metadata.labels?.['eks.amazonaws.com/nodegroup'] === group).map(bornAt).sort()[0] ?? '~';
  const nodegroups = [...valueOr(snapshot.nodegroups, [])].sort((a, b) => firstNodeOf(a.name).localeCompare(firstNodeOf(b.name))).map((ng) => {
    const custom = ng.amiType === 'CUSTOM';
    const ngNodes = nodes.filter((n) => n.metadata.labels?.['eks.amazonaws.com/nodegroup'] === ng.name);
    const imageId = ngNodes.map((n) => n.metadata.labels?.['eks.amazonaws.com/nodegroup-image']).find(Boolean) ?? (ng.releaseVersion?.startsWith('ami-') ? ng.releaseVersion : undefined);
    const zones = [...new Set(ng.subnets.map((s) => zoneOf.get(s)).filter((z): z is string => !!z))];
    const allZones = new Set(subnets.map((s) => s.availabilityZone));
    const latest = valueOr(snapshot.launchTemplates ?? { ok: true, value: [] }, []).find((lt) => lt.id === ng.launchTemplate?.id || lt.name === ng.launchTemplate?.name);
    const ltVersion = Number(ng.launchTemplate?.version ?? 1) || 1;
    return compact({
      name: hide(ng.name),
      version: ng.version,
      amiType: ng.amiType,
      capacityType: ng.capacityType,
      instanceTypes: ng.instanceTypes.length ? ng.instanceTypes : undefined,
      scaling: ng.scaling,
      updateConfig: ng.maxUnavailablePercentage ? { maxUnavailablePercentage: ng.maxUnavailablePercentage } : { maxUnavailable: ng.maxUnavailable ?? 1 },
      labels: hideValues(ng.labels, hide),
      taints: ng.taints.map((t) => compact({ key: t.key, value: t.value === undefined ? undefined : hide(t.value), effect: t.effect })),
      zones: zones.length && zones.length < allZones.size ? zones : undefined,
      launchTemplate:
        custom && imageId
          ? compact({ name: hide(ng.launchTemplate?.name ?? `${ng.name}-lt`), imageId, version: ltVersion, latestVersion: latest?.latestVersion && latest.latestVersion > ltVersion ? latest.latestVersion : undefined })
          : undefined,
      tags: Object.keys(ng.tags).length ? hideTags(ng.tags, hide) : undefined,
    });
  });

  const selfManaged = valueOr(snapshot.autoScalingGroups ?? { ok: true, value: [] }, []).map((asg) => {
    const asgNodes = nodes.filter((n) => asg.instanceIds.some((id) => String(n.spec?.providerID ?? '').endsWith(`/${id}`)));
    const first = asgNodes[0];
    const kubelet = String(first?.status?.nodeInfo?.kubeletVersion ?? '');
    const minor = /^v?(\d+\.\d+)/.exec(kubelet)?.[1];
    const osImage = String(first?.status?.nodeInfo?.osImage ?? '');
    const family = /bottlerocket/i.test(osImage) ? 'Bottlerocket' : /2023/.test(osImage) ? 'AL2023' : 'AL2';
    const arch = first?.status?.nodeInfo?.architecture === 'arm64' ? 'arm64' : 'x86_64';
    const zones = [...new Set(asgNodes.map((n) => n.metadata.labels?.['topology.kubernetes.io/zone']).filter((z): z is string => !!z))];
    const pending = Math.max(0, (asg.launchTemplate?.latestVersion ?? 0) - (asg.launchTemplate?.defaultVersion ?? asg.launchTemplate?.latestVersion ?? 0));
    return compact({
      name: hide(asg.name),
      version: minor,
      instanceType: first?.metadata.labels?.['node.kubernetes.io/instance-type'],
      count: asg.desiredCapacity,
      min: asg.minSize,
      max: asg.maxSize,
      ami: { family, arch, variant: /nvidia|gpu/i.test(osImage) ? 'nvidia' : 'standard' },
      launchTemplate: asg.launchTemplate ? compact({ name: hide(asg.launchTemplate.name), pendingVersions: pending || undefined }) : undefined,
      protectedFromScaleIn: asg.protectedInstances.length > 0 && asg.protectedInstances.length === asg.instanceIds.length ? true : undefined,
      labels: hideValues(ownLabels(first), hide),
      taints: ((first?.spec?.taints ?? []) as Array<{ key: string; value?: string; effect: string }>).map((t) => compact({ key: t.key, value: t.value === undefined ? undefined : hide(t.value), effect: t.effect })),
      zones: zones.length ? zones : undefined,
    });
  });

  const deprecatedApis = valueOr(snapshot.insights, []).flatMap((insight) =>
    insight.deprecations.flatMap((d) => {
      const resource = insight.resources.map((r) => parseResourceUri(r.uri)).find((r) => r && d.usage.startsWith(`/apis/${r.apiVersion}/`) || (r && d.usage.startsWith(`/api/${r.apiVersion}/`)));
      const client = d.clients[0];
      if (!d.stopServingVersion || !d.startServingReplacementVersion) return [];
      return [
        compact({
          usage: d.usage,
          replacedWith: d.replacedWith ?? d.usage,
          removedIn: d.stopServingVersion,
          startServingReplacementVersion: d.startServingReplacementVersion,
          userAgent: client?.userAgent,
          requestsLast30Days: d.clients.reduce((sum, c) => sum + c.requestsLast30Days, 0),
          resource: resource ? compact({ ...resource, namespace: resource.namespace === undefined ? undefined : hide(resource.namespace), name: hide(resource.name) }) : undefined,
        }),
      ];
    }),
  );
  const refreshed = valueOr(snapshot.insights, []).map((i) => i.lastRefreshTime).filter((t): t is number => typeof t === 'number');
  const insightsAgeHours = refreshed.length ? Math.min(24, Math.max(0, Math.floor((snapshot.readAt - Math.min(...refreshed)) / 3_600_000))) : 0;

  const karpenter = valueOr(kube.karpenter, undefined);
  const nodeClassesByName = new Map((karpenter?.nodeClasses ?? []).map((c) => [c.metadata.name, c]));
  const karpenterNodes = (karpenter?.nodeClaims ?? []).flatMap((claim) => {
    const labels = claim.metadata.labels ?? {};
    const pool = labels['karpenter.sh/nodepool'];
    const instanceType = labels['node.kubernetes.io/instance-type'];
    const zone = labels['topology.kubernetes.io/zone'];
    if (!pool || !instanceType || !zone) return [];
    const nodeClass = nodeClassesByName.get(String((claim.spec as { nodeClassRef?: { name?: string } } | undefined)?.nodeClassRef?.name ?? ''));
    const byTags = ((nodeClass?.spec?.amiSelectorTerms ?? []) as Array<Record<string, unknown>>).some((t) => t.tags && !t.id && !t.alias && !t.ssmParameter);
    return [compact({ nodePool: hide(pool), instanceType, zone, capacityType: labels['karpenter.sh/capacity-type'] === 'spot' ? 'spot' : undefined, imageId: byTags ? (claim.status as { imageID?: string } | undefined)?.imageID : undefined })];
  });

  const manifests: KubeObject[] = [];
  const take = (read: { ok: boolean; value?: KubeObject[] } | undefined) => (read?.ok ? (read.value ?? []) : []);
  const born = new Map<KubeObject, string>();
  const keep = (o: KubeObject) => {
    const clean = cleanObject(o, hide);
    born.set(clean, bornAt(o));
    manifests.push(clean);
  };
  take(kube.daemonsets).forEach(keep);
  take(kube.deployments).forEach(keep);
  take(kube.statefulsets).forEach(keep);
  take(kube.replicasets).filter((rs) => !(rs.metadata.ownerReferences ?? []).length).forEach(keep);
  take(kube.pvcs).forEach(keep);
  take(kube.pdbs).forEach(keep);
  take(kube.hpas).forEach(keep);
  take(kube.services).filter((s) => !(s.metadata.namespace === 'default' && s.metadata.name === 'kubernetes')).forEach(keep);
  take(kube.webhooks).forEach(keep);
  take(kube.eniConfigs).forEach(keep);
  const replicaSetOwner = new Map(take(kube.replicasets).map((rs) => [`${rs.metadata.namespace}/${rs.metadata.name}`, rs]));
  for (const pod of take(kube.pods)) {
    const owner = pod.metadata.ownerReferences?.[0];
    if (!owner) {
      keep({ ...pod, kind: 'Pod', apiVersion: 'v1' });
      continue;
    }
    // Pods of what the twin copies are made again by the simulated controllers; others (Jobs, operators) are copied bare.
    if (['StatefulSet', 'DaemonSet', 'Node'].includes(owner.kind)) continue;
    if (owner.kind === 'ReplicaSet' && (replicaSetOwner.has(`${pod.metadata.namespace}/${owner.name}`) || /-[a-z0-9]{6,10}$/.test(owner.name))) continue;
    const bare = { ...pod, kind: 'Pod', apiVersion: 'v1', metadata: { ...pod.metadata, ownerReferences: undefined } } as KubeObject;
    keep(bare);
  }
  manifests.sort((a, b) => born.get(a)!.localeCompare(born.get(b)!));
  const helm = kube.helmReleases?.ok ? kube.helmReleases.value : [];
  for (const release of helm) manifests.push(helmSecret(release, hide));

  const cluster = compact({
    name: hide(info.name),
    region: snapshot.region,
    version: info.version,
    platformVersion: info.platformVersion,
    supportType: info.supportType,
    tags: hideTags(info.tags, hide),
    health: info.healthIssues.length ? info.healthIssues.map((h) => ({ code: h.code, message: h.message, resourceIds: h.resourceIds })) : undefined,
    vpc: clusterSubnets.length
      ? { cidr: vpcCidr(clusterSubnets[0].cidrBlock ?? '10.0.0.0/16'), subnets: clusterSubnets.map((s, i) => compact({ zone: s.availabilityZone, cidr: s.cidrBlock ?? `10.0.${i * 16}.0/20`, availableIps: s.availableIpAddressCount + nodes.filter((n) => n.metadata.labels?.['topology.kubernetes.io/zone'] === s.availabilityZone).length, id: s.subnetId })) }
      : undefined,
    nodegroups,
    selfManaged: selfManaged.length ? selfManaged : undefined,
    fargateProfiles: valueOr(snapshot.fargateProfiles, []).map((p) => ({ name: hide(p.name), selectors: p.selectors.map((s) => compact({ namespace: hide(s.namespace), labels: s.labels ? hideValues(s.labels, hide) : undefined })) })),
    addons: valueOr(snapshot.addons, []).filter((a) => /^v\d+\.\d+\.\d+-eksbuild\.\d+$/.test(a.version)).map((a) => ({ name: a.name, version: a.version })),
    deprecatedApis,
    insightsAgeHours,
    karpenter: karpenter
      ? {
          nodePools: karpenter.nodePools.map((o) => cleanObject(o, hide)),
          ec2NodeClasses: karpenter.nodeClasses.map((o) => cleanObject(o, hide)),
          nodes: karpenterNodes,
        }
      : undefined,
    kubernetes: manifests,
  });
  if (options.anonymize) {
    // The cluster's name also hides in Karpenter's selectors, roles and tags: hash it everywhere. Then every other
    // name hashed above is hashed wherever else it appears (selectors, affinities, tolerations, references), and
    // every image (twin-anonymizer.ts).
    const hidden = JSON.parse(JSON.stringify(cluster).split(info.name).join(hide(info.name))) as typeof cluster;
    Object.assign(cluster, anon.everywhere(hidden));
  }
  const offered = valueOr(snapshot.versions, []).filter((v) => v.support !== 'unsupported').map((v) => v.version);
  return compact({
    name: options.name ?? `twin-${hide(info.name)}`,
    description: `Twin of ${hide(info.name)} (${snapshot.region}) read at ${new Date(snapshot.readAt).toISOString()} by eks-upgrade snapshot.`,
    calendarAsOf: options.calendarAsOf,
    eks: { ...(offered.length ? { versions: offered } : {}), ...TWIN_DEFAULTS },
    clusters: [cluster],
  });
}

function ownLabels(node: KubeObject | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(node?.metadata.labels ?? {}).filter(([k]) => !WELL_KNOWN_NODE_LABEL.test(k)));
}

function vpcCidr(subnetCidr: string): string {
  const [a, b] = subnetCidr.split('.');
  return `${a}.${b}.0.0/16`;
}

function parseResourceUri(uri: string | undefined): { resource: string; namespace?: string; name: string; apiVersion: string } | undefined {
  const m = /^\/apis?\/(.+?)\/(?:namespaces\/([^/]+)\/)?([^/]+)\/([^/]+)$/.exec(uri ?? '');
  if (!m) return undefined;
  return { apiVersion: m[1], namespace: m[2], resource: m[3], name: m[4] };
}

/** An object as `kubectl apply` would take it again: no status, no server-set metadata, no secrets or env values. */
function cleanObject(object: KubeObject, hide: (s: string) => string): KubeObject {
  const { status: _status, ...rest } = structuredClone(object) as KubeObject & { status?: unknown };
  const meta = object.metadata;
  const annotations: Record<string, string> = {};
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    if (DROPPED_ANNOTATION.test(key)) continue;
    if (key === 'kubectl.kubernetes.io/last-applied-configuration') {
      const applied = safeJson(value) as { apiVersion?: string; kind?: string } | undefined;
      if (applied?.apiVersion) annotations[key] = JSON.stringify({ apiVersion: applied.apiVersion, kind: applied.kind, metadata: { name: hide(meta.name), ...(meta.namespace ? { namespace: hide(meta.namespace) } : {}) } });
      continue;
    }
    annotations[key] = value;
  }
  const out = rest as KubeObject & Record<string, any>;
  out.metadata = compact({
    name: hide(meta.name),
    namespace: meta.namespace === undefined ? undefined : hide(meta.namespace),
    labels: meta.labels && Object.keys(meta.labels).length ? hideValues(meta.labels, hide) : undefined,
    annotations: Object.keys(annotations).length ? annotations : undefined,
  }) as KubeObject['metadata'];
  if (out.kind === 'Pod') {
    delete out.spec?.nodeName;
    scrubPodSpec(out.spec, hide);
  }
  if (out.kind === 'NodePool') {
    // Karpenter's taints are what pods tolerate: their values are hashed as node groups' are.
    for (const list of [out.spec?.template?.spec?.taints, out.spec?.template?.spec?.startupTaints]) {
      for (const taint of (list ?? []) as Array<{ value?: string }>) if (taint.value !== undefined) taint.value = hide(taint.value);
    }
  } else if (out.spec?.template?.spec) scrubPodSpec(out.spec.template.spec, hide);
  if (out.spec?.template?.metadata?.labels) out.spec.template.metadata.labels = hideValues(out.spec.template.metadata.labels, hide);
  if (out.spec?.selector?.matchLabels) out.spec.selector.matchLabels = hideValues(out.spec.selector.matchLabels, hide);
  else if (out.kind === 'Service' && out.spec?.selector) out.spec.selector = hideValues(out.spec.selector, hide);
  if (out.kind === 'Service') {
    delete out.spec?.clusterIP;
    delete out.spec?.clusterIPs;
  }
  if (out.kind === 'StatefulSet' && out.spec?.serviceName) out.spec.serviceName = hide(out.spec.serviceName);
  if (out.kind === 'HorizontalPodAutoscaler' && out.spec?.scaleTargetRef?.name) out.spec.scaleTargetRef.name = hide(out.spec.scaleTargetRef.name);
  for (const hook of (out.webhooks ?? []) as Array<{ clientConfig?: { caBundle?: string } }>) delete hook.clientConfig?.caBundle;
  const readySeconds = Number(meta.annotations?.[TWIN_ANNOTATIONS.readySeconds]);
  if (readySeconds > 0 && out.spec?.template?.spec) {
    for (const c of out.spec.template.spec.containers ?? []) c.readinessProbe = { ...(c.readinessProbe ?? { tcpSocket: { port: 8080 } }), initialDelaySeconds: readySeconds };
  }
  return out;
}

/**
 * Env values, envFrom and command lines never leave the cluster; secret volumes keep only their shape. Container
 * names, the service account and what volumes refer to are names like any other (hashed when anonymized).
 */
function scrubPodSpec(spec: any, hide: (s: string) => string): void {
  for (const list of [spec.containers, spec.initContainers, spec.ephemeralContainers]) {
    for (const c of (list ?? []) as any[]) {
      if (c.env) c.env = c.env.map((e: { name: string }) => ({ name: e.name }));
      delete c.envFrom;
      delete c.args;
      delete c.command;
      if (typeof c.name === 'string') c.name = hide(c.name);
    }
  }
  delete spec.imagePullSecrets;
  for (const key of ['serviceAccountName', 'serviceAccount', 'priorityClassName', 'hostname', 'subdomain'] as const) {
    if (typeof spec[key] === 'string' && !/^system-/.test(spec[key])) spec[key] = hide(spec[key]);
  }
  for (const volume of (spec.volumes ?? []) as any[]) {
    if (volume.name) volume.name = hide(volume.name);
    if (volume.configMap?.name) volume.configMap.name = hide(volume.configMap.name);
    if (volume.secret?.secretName) volume.secret.secretName = hide(volume.secret.secretName);
    if (volume.persistentVolumeClaim?.claimName) volume.persistentVolumeClaim.claimName = hide(volume.persistentVolumeClaim.claimName);
  }
}

/** A Helm release secret holding only the chart's metadata and the apiVersion/kind/name of what it rendered. */
function helmSecret(release: HelmRelease, hide: (s: string) => string): KubeObject {
  const objects = parseAllDocuments(release.manifest).flatMap((doc) => {
    const o = doc.toJS() as { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string } } | null;
    if (!o?.apiVersion || !o.kind) return [];
    return [`apiVersion: ${o.apiVersion}\nkind: ${o.kind}\nmetadata:\n  name: ${hide(o.metadata?.name ?? 'unnamed')}${o.metadata?.namespace ? `\n  namespace: ${hide(o.metadata.namespace)}` : ''}\n`];
  });
  const record = {
    name: hide(release.name),
    namespace: hide(release.namespace),
    version: release.revision,
    info: { status: release.status },
    chart: { metadata: compact({ name: release.chart.name, version: release.chart.version, kubeVersion: release.chart.kubeVersion, appVersion: release.chart.appVersion }) },
    manifest: objects.map((o) => `---\n${o}`).join(''),
  };
  const helmEncoded = gzipSync(Buffer.from(JSON.stringify(record))).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'helm.sh/release.v1',
    metadata: { name: `sh.helm.release.v1.${hide(release.name)}.v${release.revision}`, namespace: hide(release.namespace), labels: { owner: 'helm', name: hide(release.name), version: String(release.revision), status: release.status } },
    data: { release: Buffer.from(helmEncoded).toString('base64') },
  } as KubeObject;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Tags keep their keys; a value naming the tool that manages the resource keeps that word (checks read it). */
function hideTags(tags: Record<string, string>, hide: (s: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(tags).map(([k, v]) => [k, /terraform/i.test(v) && hide(v) !== v ? 'terraform' : hide(v)]));
}

function hideValues(map: Record<string, string>, hide: (s: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, hide(v)]));
}


function compact<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
