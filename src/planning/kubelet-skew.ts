import { formatMinor, minorDistance, minorOfKubelet, parseMinor } from '../domain/minor-version.js';

export { kubeletMinorOf } from '../domain/node-status.js';

/**
 * The upstream version-skew policy for kubelets against the apiserver (kubernetes.io/releases/version-skew-policy):
 * a kubelet may never be newer than the apiserver; it may be up to 3 minors older since 1.28, 2 before. EKS's
 * API reference is stricter for managed node groups (must match before the next control-plane upgrade); the
 * product follows the skew policy and says so.
 */
export interface NodeVersion {
  name: string;
  kubeletVersion: string;
}

export interface SkewReport {
  apiVersion: string;
  maxLag: number;
  /** kubelet minor → node names */
  byMinor: Record<string, string[]>;
  tooOld: NodeVersion[];
  tooNew: NodeVersion[];
  unparsable: NodeVersion[];
}

export const SKEW_RULE_TEXT = 'kubelets may be up to 3 minors older than the control plane since 1.28 (2 before), never newer';

export function maxKubeletLag(apiVersion: string): number {
  const api = parseMinor(apiVersion);
  return api && api.major === 1 && api.minor >= 28 ? 3 : 2;
}

export function checkKubeletSkew(nodes: NodeVersion[], apiVersion: string): SkewReport {
  const api = parseMinor(apiVersion);
  const maxLag = maxKubeletLag(apiVersion);
  const report: SkewReport = { apiVersion, maxLag, byMinor: {}, tooOld: [], tooNew: [], unparsable: [] };
  for (const node of nodes) {
    const kubelet = minorOfKubelet(node.kubeletVersion);
    if (!kubelet || !api) {
      report.unparsable.push(node);
      continue;
    }
    const minor = formatMinor(kubelet);
    (report.byMinor[minor] ??= []).push(node.name);
    const lag = minorDistance(kubelet, api);
    if (lag < 0) report.tooNew.push(node);
    else if (lag > maxLag) report.tooOld.push(node);
  }
  return report;
}

/** "1.30 ×2, 1.31 ×1" */
export function describeKubeletMinors(report: SkewReport): string {
  const entries = Object.entries(report.byMinor).sort(([a], [b]) => a.localeCompare(b, undefined, { numeric: true }));
  if (entries.length === 0) return 'no nodes';
  return entries.map(([minor, names]) => `${minor} ×${names.length}`).join(', ');
}

export function nodeVersionsOf(nodes: Array<{ metadata: { name: string }; status?: any }>): NodeVersion[] {
  return nodes.map((node) => ({ name: node.metadata.name, kubeletVersion: String(node.status?.nodeInfo?.kubeletVersion ?? '') }));
}

