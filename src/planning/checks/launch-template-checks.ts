import type { ClusterSnapshot } from '../cluster-snapshot.js';
import type { Finding } from '../../ports/finding.js';
import type { PlanPolicy } from '../plan-policy.js';

/**
 * NG005 — a managed node group whose launch template has a newer version than the one it runs: changes someone made
 * to the template but never rolled out. Rolling the node group to a newer template version during the upgrade (as
 * NG001's `launchTemplateVersion` or a console "update" does) ships those changes too, by surprise.
 */
export function checkLaunchTemplates(snapshot: ClusterSnapshot, _target: string, policy: PlanPolicy): Finding[] {
  if (!snapshot.launchTemplates?.ok || !snapshot.nodegroups.ok) return [];
  const findings: Finding[] = [];
  for (const ng of snapshot.nodegroups.value) {
    const lt = ng.launchTemplate;
    if (!lt?.version) continue;
    const latest = snapshot.launchTemplates.value.find((t) => (lt.id && t.id === lt.id) || (lt.name && t.name === lt.name));
    const inUse = Number(lt.version);
    if (!latest || !Number.isFinite(inUse) || latest.latestVersion <= inUse) continue;
    const planned = policy.nodegroup(ng.name).launchTemplateVersion;
    findings.push({
      code: 'NG005',
      severity: 'warning',
      title: `nodegroup/${ng.name} runs launch template ${lt.name ?? lt.id} version ${inUse}, but version ${latest.latestVersion} exists: rolling to a newer version during the upgrade also rolls out whatever changed in between${planned ? ` (clusters.yaml plans version ${planned})` : ''}`,
      resources: [`nodegroup/${ng.name}`, `launchtemplate/${lt.id ?? lt.name}`],
      remedy: `Compare the versions (aws ec2 describe-launch-template-versions --launch-template-id ${lt.id ?? '<id>'} --versions ${inUse} ${latest.latestVersion}) and either roll them out before the upgrade or pin the version the upgrade should use (nodegroups.${ng.name}.launchTemplateVersion in clusters.yaml).`,
    });
  }
  return findings;
}
