import { describe, expect, it } from 'vitest';
import { KUBE_RESOURCES } from '../../src/kube/kube-resources.js';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import { checkKubeAccess, REQUIRED_KUBE_ACCESS } from '../../src/planning/checks/kube-access-check.js';
import { loadRbacFile } from '@eks-upgrade-bot/sim';
import { healthySnapshot } from './check-snapshot-fixture.js';

/**
 * The permissions preflight asks for (ACC001) and the ClusterRole deploy/ ships are the same list, and cover every
 * resource the Kubernetes adapter can read.
 */
type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
const clusterRole = loadRbacFile('deploy/rbac/cluster-role.yaml').find((o) => o.kind === 'ClusterRole')!;
const granted = (clusterRole.rules as Rule[]).flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${g}/${res}`))));
const required = REQUIRED_KUBE_ACCESS.map((a) => `${a.verb} ${a.group}/${a.subresource ? `${a.resource}/${a.subresource}` : a.resource}`);

describe('Kubernetes access', () => {
  it('deploy/rbac/cluster-role.yaml grants exactly what preflight checks for, with no wildcards', () => {
    expect([...granted].sort()).toEqual([...required].sort());
    expect(granted.filter((g) => g.includes('*'))).toEqual([]);
  });

  it('lets the bot get, list and watch every resource the adapter knows, in the group the adapter uses', () => {
    // Secrets are read only with `checks.helmReleases: true`; that opt-in grants its own `list` (docs/permissions.md says so).
    const optIn = new Set(['secrets']);
    for (const [resource, info] of Object.entries(KUBE_RESOURCES).filter(([name]) => !optIn.has(name))) {
      for (const verb of ['get', 'list', 'watch']) expect(required).toContain(`${verb} ${info.group}/${resource}`);
    }
    for (const need of REQUIRED_KUBE_ACCESS) expect(KUBE_RESOURCES[need.resource].group).toBe(need.group);
  });

  it('ACC001 names each missing permission and why it is needed, and is silent when all are granted or none were asked', () => {
    const s = healthySnapshot();
    expect(checkKubeAccess(s)).toEqual([]);
    s.kube = { ...s.kube, access: readOk(REQUIRED_KUBE_ACCESS.map(({ verb, resource, subresource }) => ({ verb, resource, subresource, allowed: true }))) };
    expect(checkKubeAccess(s)).toEqual([]);
    s.kube.access = readOk(
      REQUIRED_KUBE_ACCESS.map(({ verb, resource, subresource }) => ({ verb, resource, subresource, allowed: !(verb === 'patch' && resource === 'nodepools') && subresource !== 'eviction' })),
    );
    const [finding] = checkKubeAccess(s);
    expect(finding).toMatchObject({ code: 'ACC001', severity: 'error' });
    expect(finding.title).toBe(
      `The bot's Kubernetes identity on ${s.name} may not patch nodepools.karpenter.sh (the upgrade disruption budget), create pods/eviction (draining nodes with PDBs honoured)`,
    );
    expect(finding.remedy).toContain('deploy/rbac/cluster-role.yaml');
  });
});
