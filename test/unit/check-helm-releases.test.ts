import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkHelmReleases } from '../../src/planning/checks/helm-release-checks.js';
import type { HelmRelease } from '../../src/planning/cluster-snapshot.js';
import { decodeHelmReleases } from '../../src/cluster-reader/decode-helm-release.js';
import { codes, healthySnapshot, withKube } from './check-snapshot-fixture.js';

/** Helm v3 release secrets decoded (Secret base64 → Helm base64 → gzip → JSON), and HLM001/HLM002 on them. */
function secret(name: string, revision: number, release: Record<string, unknown>, namespace = 'apps') {
  const helm = gzipSync(Buffer.from(JSON.stringify(release))).toString('base64');
  return {
    type: 'helm.sh/release.v1',
    metadata: { name: `sh.helm.release.v1.${name}.v${revision}`, namespace, labels: { owner: 'helm', name, version: String(revision) } },
    data: { release: Buffer.from(helm).toString('base64') },
  };
}

const manifest = (apiVersion: string, kind: string) => `---\n# Source: web/templates/x.yaml\napiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: web\n  namespace: apps\n`;

function release(overrides: Partial<HelmRelease> = {}): HelmRelease {
  return { name: 'web', namespace: 'apps', revision: 4, status: 'deployed', chart: { name: 'web', version: '1.2.0' }, manifest: manifest('apps/v1', 'Deployment'), ...overrides };
}

describe('Helm releases', () => {
  it('decodes the newest revision of each release and names secrets that do not decode', () => {
    const secrets = [
      secret('web', 3, { name: 'web', namespace: 'apps', version: 3, info: { status: 'superseded' }, chart: { metadata: { name: 'web', version: '1.1.0' } }, manifest: 'old' }),
      secret('web', 4, { name: 'web', namespace: 'apps', version: 4, info: { status: 'deployed' }, chart: { metadata: { name: 'web', version: '1.2.0', kubeVersion: '>=1.25.0-0' } }, manifest: 'new' }),
      { type: 'helm.sh/release.v1', metadata: { name: 'sh.helm.release.v1.bad.v1', namespace: 'apps' }, data: { release: 'bm90IGd6aXA=' } },
    ];
    const { releases, unreadable } = decodeHelmReleases(secrets as any);
    expect(releases).toEqual([{ name: 'web', namespace: 'apps', revision: 4, status: 'deployed', chart: { name: 'web', version: '1.2.0', kubeVersion: '>=1.25.0-0' }, manifest: 'new' }]);
    expect(unreadable).toEqual([expect.stringMatching(/^apps\/sh\.helm\.release\.v1\.bad\.v1 \(/)]);
  });

  it('HLM001: an API the upgrade removes is an error; one already removed a warning; served APIs nothing', () => {
    const at = (rel: HelmRelease) => withKube(healthySnapshot(), 'helmReleases', [rel]);
    const [removed] = checkHelmReleases(at(release({ manifest: manifest('flowcontrol.apiserver.k8s.io/v1beta3', 'FlowSchema') })), '1.32');
    expect(removed).toMatchObject({ code: 'HLM001', severity: 'error', resources: ['helmrelease/apps/web', 'flowschema/apps/web'] });
    expect(removed.title).toBe('Helm release apps/web (chart web 1.2.0, revision 4) was applied with flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema, which is removed in 1.32; use flowcontrol.apiserver.k8s.io/v1');
    expect(codes(checkHelmReleases(at(release({ manifest: manifest('policy/v1beta1', 'PodDisruptionBudget') })), '1.31'))).toEqual(['HLM001:warning']);
    expect(checkHelmReleases(at(release({ manifest: manifest('flowcontrol.apiserver.k8s.io/v1beta3', 'FlowSchema') })), '1.31')).toEqual([]);
    expect(checkHelmReleases(at(release()), '1.33')).toEqual([]);
  });

  it('HLM002: a chart kubeVersion constraint that excludes the target (semver ranges, EKS pre-release tags allowed)', () => {
    const at = (kubeVersion: string) => withKube(healthySnapshot(), 'helmReleases', [release({ chart: { name: 'web', version: '1.2.0', kubeVersion } })]);
    expect(codes(checkHelmReleases(at('>=1.21.0-0 <1.31.0-0'), '1.31'))).toEqual(['HLM002:warning']);
    expect(checkHelmReleases(at('>=1.21.0-0'), '1.31')).toEqual([]);
    expect(checkHelmReleases(at('^1.28.0-0'), '1.31')).toEqual([]);
  });

  it('stays silent when the releases were not read (checks.helmReleases off)', () => {
    expect(checkHelmReleases(healthySnapshot(), '1.31')).toEqual([]);
  });
});
