import type { KubeObject } from '../../ports/kube-port.js';
import { nodeClassAmi } from '../deciders/ami-parameters.js';
import { valueOr, type ClusterSnapshot } from '../cluster-snapshot.js';
import { plural, type Finding } from '../../ports/finding.js';
import { upgradePath } from '../upgrade-path.js';
import { fargateRestarts } from './fargate-checks.js';
import { checkWorkloads } from './workload-checks.js';

/**
 * OPS0xx — who else owns what the upgrade changes. A live change to an object Argo CD syncs (a NodePool budget,
 * an EC2NodeClass AMI, a Deployment's replicas) shows as drift, and self-heal may undo it mid-upgrade; a cluster
 * Terraform or eksctl manages keeps the old version in code, and the next apply fights the new state. Each finding
 * says what to change in Git or in the IaC code.
 */
interface Manager {
  tool: 'Argo CD' | 'Argo CD or Helm';
  app: string;
}

/** Argo CD's tracking: label argocd.argoproj.io/instance, annotation argocd.argoproj.io/tracking-id, or app.kubernetes.io/instance. */
export function argoManager(object: KubeObject): Manager | undefined {
  const labels = object.metadata.labels ?? {};
  const annotations = object.metadata.annotations ?? {};
  if (labels['argocd.argoproj.io/instance']) return { tool: 'Argo CD', app: labels['argocd.argoproj.io/instance'] };
  const tracking = annotations['argocd.argoproj.io/tracking-id'];
  if (tracking) return { tool: 'Argo CD', app: tracking.split(':')[0] };
  const instance = labels['app.kubernetes.io/instance'];
  if (!instance) return undefined;
  const argoKeys = [...Object.keys(labels), ...Object.keys(annotations)].some((key) => key.startsWith('argocd.argoproj.io/'));
  if (argoKeys) return { tool: 'Argo CD', app: instance };
  // app.kubernetes.io/instance is Argo CD's default tracking label, but Helm sets it too.
  return labels['app.kubernetes.io/managed-by'] === 'Helm' ? undefined : { tool: 'Argo CD or Helm', app: instance };
}

export function isTerraformManaged(tags: Record<string, string>): boolean {
  return Object.entries(tags).some(([key, value]) => /terraform/i.test(key) || /terraform/i.test(value) || /^blueprint$/i.test(key));
}

export function isEksctlManaged(tags: Record<string, string>): boolean {
  return Object.keys(tags).some((key) => key.startsWith('alpha.eksctl.io/') || key.startsWith('eksctl.cluster.k8s.io/'));
}

/** The objects the upgrade (or the remedies it proposes) changes live, with what it changes. */
function touchedObjects(snapshot: ClusterSnapshot, target: string): Array<{ object: KubeObject; ref: string; change: string }> {
  const touched: Array<{ object: KubeObject; ref: string; change: string }> = [];
  const karpenter = valueOr(snapshot.kube.karpenter, undefined);
  for (const pool of karpenter?.nodePools ?? []) touched.push({ object: pool, ref: `nodepool/${pool.metadata.name}`, change: 'disruption budget' });
  for (const nodeClass of karpenter?.nodeClasses ?? []) {
    const ami = nodeClassAmi(nodeClass);
    if (ami.selection === 'id' || ami.selection === 'name') touched.push({ object: nodeClass, ref: `ec2nodeclass/${nodeClass.metadata.name}`, change: 'amiSelectorTerms' });
  }
  const find = (kind: string, ns: string, name: string) => {
    const list = kind === 'deployment' ? valueOr(snapshot.kube.deployments, []) : kind === 'statefulset' ? valueOr(snapshot.kube.statefulsets, []) : [];
    return list.find((o) => o.metadata.name === name && (o.metadata.namespace ?? 'default') === ns);
  };
  for (const finding of checkWorkloads(snapshot, target).filter((f) => f.code === 'K8S004')) {
    const [kind, ns, name] = finding.resources[0].split('/');
    const object = find(kind, ns, name);
    if (object) touched.push({ object, ref: finding.resources[0], change: 'replicas' });
  }
  for (const w of fargateRestarts(snapshot, target).workloads) {
    const object = find(w.kind.toLowerCase(), w.namespace, w.name);
    if (object) touched.push({ object, ref: `${w.kind.toLowerCase()}/${w.namespace}/${w.name}`, change: 'rollout restart annotation' });
  }
  for (const hpa of valueOr(snapshot.kube.hpas, [])) {
    if (/autoscaling\/v2beta/.test(hpa.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] ?? '')) {
      touched.push({ object: hpa, ref: `horizontalpodautoscaler/${hpa.metadata.namespace ?? 'default'}/${hpa.metadata.name}`, change: 'apiVersion (deprecated API)' });
    }
  }
  return touched;
}

export function checkGitOps(snapshot: ClusterSnapshot, target: string): Finding[] {
  const path = upgradePath(snapshot, target);
  if (!path) return [];
  const findings: Finding[] = [];

  const byApp = new Map<string, { manager: Manager; items: string[] }>();
  for (const { object, ref, change } of touchedObjects(snapshot, path.to)) {
    const manager = argoManager(object);
    if (!manager) continue;
    const key = `${manager.tool}|${manager.app}`;
    const entry = byApp.get(key) ?? { manager, items: [] };
    entry.items.push(`${ref} (${change})`);
    byApp.set(key, entry);
  }
  for (const { manager, items } of byApp.values()) {
    const certain = manager.tool === 'Argo CD';
    findings.push({
      code: 'OPS001',
      severity: certain ? 'warning' : 'info',
      title: `${manager.tool} application ${manager.app} manages ${plural(items.length, 'object')} this upgrade changes live; ${certain ? 'the change will show as drift and self-heal may undo it' : 'a sync may undo the change'}`,
      resources: items,
      remedy: `Make the same change in Git (the source of ${manager.app}) — or turn off auto-sync/self-heal for the upgrade (argocd app set ${manager.app} --sync-policy none) and commit the new values before turning it back on.`,
    });
  }

  const cluster = snapshot.cluster.ok ? snapshot.cluster.value : undefined;
  const terraform: string[] = [];
  if (cluster && isTerraformManaged(cluster.tags)) terraform.push(`cluster/${cluster.name} (version → ${path.to})`);
  for (const ng of valueOr(snapshot.nodegroups, [])) if (isTerraformManaged(ng.tags)) terraform.push(`nodegroup/${ng.name} (version / AMI)`);
  for (const addon of valueOr(snapshot.addons, [])) if (isTerraformManaged(addon.tags)) terraform.push(`addon/${addon.name} (addon_version)`);
  if (terraform.length > 0) {
    findings.push({
      code: 'OPS002',
      severity: 'warning',
      title: `Terraform manages ${plural(terraform.length, 'resource')} this upgrade changes (tags say so); the code will still say ${path.from}`,
      resources: terraform,
      remedy: `Change the code in the same change ticket: cluster_version = "${path.to}", the node group versions / AMI ids and the add-on versions the plan moves to — or run the upgrade through Terraform; otherwise the next terraform plan shows a diff or tries to undo it.`,
    });
  }
  if (cluster && isEksctlManaged(cluster.tags)) {
    findings.push({
      code: 'OPS003',
      severity: 'info',
      title: `eksctl created ${cluster.name} (its CloudFormation stacks record ${path.from})`,
      resources: [`cluster/${cluster.name}`],
      remedy: `Set metadata.version: "${path.to}" in the eksctl ClusterConfig file afterwards so later eksctl runs agree with the cluster.`,
    });
  }
  return findings;
}
