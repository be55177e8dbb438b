import semver from 'semver';
import type { KubeObject } from '../../ports/kube-port.js';
import { valueOr, type ClusterSnapshot } from '../cluster-snapshot.js';
import { podRef } from '../compute-groups.js';
import { findControllers, firstUnsupported } from '../controller-versions.js';
import { plural, type Finding } from '../../ports/finding.js';
import { matchesSelector } from '../label-selector.js';
import { minorAtLeast, minorsBetween, upgradePath } from '../upgrade-path.js';
import { isReady } from '../workloads/workload-index.js';
import { replacedNodes } from './workload-checks.js';
import { remedyOf } from './finding-codes.js';

/**
 * CMP001–CMP005 — components that are bound to the Kubernetes version but are not EKS add-ons, so nothing in the
 * upgrade moves them: cluster-autoscaler (one build per minor), controllers with a published support matrix
 * (ingress-nginx, the AWS Load Balancer Controller; Karpenter is KAR007), admission webhooks that fail closed
 * while their service cannot answer (every matching API call fails — pod creation during drains included), and a
 * self-managed kube-proxy (its skew, and IPVS mode where the target deprecates it).
 */
const IPVS_DEPRECATED_IN = '1.35';

export function checkComponents(snapshot: ClusterSnapshot, target: string): Finding[] {
  const path = upgradePath(snapshot, target);
  if (!path) return [];
  const findings: Finding[] = [];
  const deployments = valueOr(snapshot.kube.deployments, []);
  const daemonsets = valueOr(snapshot.kube.daemonsets ?? { ok: true, value: [] }, []);
  for (const { controller, found } of findControllers([{ kind: 'Deployment', objects: deployments }])) {
    const ref = `deployment/${found.namespace}/${found.workload}`;
    if (controller.id === 'karpenter' || !found.version) continue;
    if (controller.id === 'cluster-autoscaler') {
      const minor = `${semver.major(found.version)}.${semver.minor(found.version)}`;
      if (minor === path.to) continue;
      findings.push({
        code: 'CMP001',
        severity: 'warning',
        title: `cluster-autoscaler ${found.version} (${ref}) is built for Kubernetes ${minor}; after the upgrade the cluster runs ${path.to}`,
        resources: [ref],
        remedy: `Move it to the ${path.to} line with the control plane: ${controller.upgrade.replace('<target>', path.to)}.`,
      });
      continue;
    }
    const unsupported = firstUnsupported(controller, found.version, path.hops);
    if (!unsupported) continue;
    findings.push({
      code: 'CMP002',
      severity: 'warning',
      title: `${controller.name} ${found.version} (${ref}) is older than ${unsupported.minimum}, the first version that supports Kubernetes ${unsupported.minor}`,
      resources: [ref],
      remedy: `Upgrade it to ${unsupported.minimum} or later before the control plane reaches ${unsupported.minor}: ${controller.upgrade}.`,
    });
  }
  findings.push(...webhookFindings(snapshot, path.to));
  findings.push(...kubeProxyFindings(snapshot, daemonsets, path.to));
  return findings;
}

/** CMP003: failurePolicy Fail (the v1 default) with no ready backend, or one on a node the plan replaces. */
function webhookFindings(snapshot: ClusterSnapshot, to: string): Finding[] {
  if (!snapshot.kube.webhooks?.ok || !snapshot.kube.services?.ok || !snapshot.kube.pods.ok) return [];
  const services = snapshot.kube.services.value;
  const pods = snapshot.kube.pods.value;
  const replaced = replacedNodes(snapshot, to);
  const findings: Finding[] = [];
  for (const config of snapshot.kube.webhooks.value) {
    const kind = config.kind === 'MutatingWebhookConfiguration' ? 'mutatingwebhookconfiguration' : 'validatingwebhookconfiguration';
    for (const webhook of (config as { webhooks?: any[] }).webhooks ?? []) {
      const service = webhook.clientConfig?.service as { namespace?: string; name?: string } | undefined;
      if ((webhook.failurePolicy ?? 'Fail') !== 'Fail' || !service?.name) continue;
      const namespace = service.namespace ?? 'default';
      const svc = services.find((s) => s.metadata.name === service.name && (s.metadata.namespace ?? 'default') === namespace);
      const backends = svc?.spec?.selector ? pods.filter((p) => (p.metadata.namespace ?? 'default') === namespace && matchesSelector({ matchLabels: svc.spec.selector }, p.metadata.labels)) : [];
      const ready = backends.filter(isReady);
      const refs = [`${kind}/${config.metadata.name}`, `service/${namespace}/${service.name}`];
      if (ready.length === 0) {
        findings.push({
          code: 'CMP003',
          severity: 'error',
          title: `Webhook ${webhook.name} (${config.metadata.name}) fails closed and service ${namespace}/${service.name} has no ready endpoint${svc ? '' : ' (the service does not exist)'}: every API request it matches is refused, pod creation during the drains included`,
          resources: refs,
          remedy: `Bring ${namespace}/${service.name} back (or set failurePolicy: Ignore for the upgrade, or delete the stale ${kind}).`,
        });
      } else if (ready.length === 1 && replaced.has(ready[0].spec?.nodeName)) {
        findings.push({
          code: 'CMP003',
          severity: 'warning',
          title: `Webhook ${webhook.name} (${config.metadata.name}) fails closed and its only ready backend ${podRef(ready[0])} runs on ${ready[0].spec.nodeName}, which the upgrade replaces: while it moves, every API request it matches is refused`,
          resources: [...refs, `pod/${podRef(ready[0])}`],
          remedy: `Run 2 replicas of the webhook's backend on different nodes (with a PDB) before the data-plane step.`,
        });
      }
    }
  }
  return findings;
}

/** CMP004 / CMP005: kube-proxy as a DaemonSet of the cluster's own (not the EKS add-on). */
function kubeProxyFindings(snapshot: ClusterSnapshot, daemonsets: KubeObject[], to: string): Finding[] {
  const proxy = daemonsets.find((d) => d.metadata.name === 'kube-proxy' && (d.metadata.namespace ?? 'default') === 'kube-system');
  if (!proxy) return [];
  const findings: Finding[] = [];
  const container = (proxy.spec?.template?.spec?.containers ?? []).find((c: { name?: string }) => c.name === 'kube-proxy') ?? proxy.spec?.template?.spec?.containers?.[0];
  const words: string[] = [...(container?.command ?? []), ...(container?.args ?? [])].map(String);
  const ref = 'daemonset/kube-system/kube-proxy';
  // Unknown add-ons (the read failed) must not pass for "self-managed".
  const addon = !snapshot.addons.ok || snapshot.addons.value.some((a) => a.name === 'kube-proxy');
  const tag = String(container?.image ?? '').split(':').pop() ?? '';
  const version = semver.coerce(tag)?.version;
  if (!addon && version) {
    const minor = `${semver.major(version)}.${semver.minor(version)}`;
    const behind = minorsBetween(minor, to);
    const allowed = minorAtLeast(to, '1.28') ? 3 : 2;
    if (behind > 0) {
      findings.push({
        code: 'CMP004',
        severity: behind > allowed ? 'error' : 'warning',
        title: `kube-proxy is self-managed (no EKS add-on) at ${version}, ${plural(behind, 'minor')} behind ${to}${behind > allowed ? `: more than the ${allowed} the skew policy allows` : ': nothing in the upgrade moves it'}`,
        resources: [ref],
        remedy: `Set its image to the ${to} build after the control plane (kube-proxy v${to}.x-eksbuild, minimal), or adopt the EKS add-on: aws eks create-addon --cluster-name ${snapshot.name} --addon-name kube-proxy --resolve-conflicts OVERWRITE.`,
      });
    }
  }
  const ipvs = words.some((word, i) => word === '--proxy-mode=ipvs' || (word === '--proxy-mode' && words[i + 1] === 'ipvs'));
  if (ipvs && minorAtLeast(to, IPVS_DEPRECATED_IN)) {
    findings.push({
      code: 'CMP005',
      severity: 'warning',
      title: `kube-proxy runs in IPVS mode, which Kubernetes ${IPVS_DEPRECATED_IN} deprecates (target ${to})`,
      resources: [ref],
      remedy: remedyOf('CMP005'),
    });
  }
  return findings;
}
