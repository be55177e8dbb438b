/**
 * Every request the simulator answers, counted by what it asks for: AWS by service and operation
 * ("eks DescribeNodegroup"), Kubernetes by verb and resource ("list nodes", "watch nodeclaims", "create
 * pods/eviction"). GET /_sim/requests[?cluster=] shows them; DELETE /_sim/requests starts over. The benchmarks read
 * them to hold the bot to list + watch per kind and to its AWS poll interval (docs/benchmarks.md).
 */
export interface RequestCounts {
  aws: Record<string, number>;
  kube: Record<string, number>;
}

export interface RequestCounter {
  aws(service: string, operation: string, cluster?: string): void;
  kube(method: string, path: string, cluster: string): void;
  counts(cluster?: string): RequestCounts;
  reset(): void;
}

export function createRequestCounter(): RequestCounter {
  const all: RequestCounts = { aws: {}, kube: {} };
  const byCluster = new Map<string, RequestCounts>();
  const bump = (area: 'aws' | 'kube', key: string, cluster?: string) => {
    all[area][key] = (all[area][key] ?? 0) + 1;
    if (!cluster) return;
    let counts = byCluster.get(cluster);
    if (!counts) byCluster.set(cluster, (counts = { aws: {}, kube: {} }));
    counts[area][key] = (counts[area][key] ?? 0) + 1;
  };
  return {
    aws: (service, operation, cluster) => bump('aws', `${service} ${operation || '(unknown)'}`, cluster),
    kube: (method, path, cluster) => bump('kube', kubeRequestKey(method, path), cluster),
    counts: (cluster) => structuredClone(cluster ? byCluster.get(cluster) ?? { aws: {}, kube: {} } : all),
    reset() {
      all.aws = {};
      all.kube = {};
      byCluster.clear();
    },
  };
}

/**
 * "verb resource[/subresource]" for a Kubernetes API path: /api/v1/namespaces/a/pods?watch=1 → "watch pods",
 * /apis/karpenter.sh/v1/nodeclaims/x → "get nodeclaims", POST …/pods/p/eviction → "create pods/eviction".
 */
export function kubeRequestKey(method: string, path: string): string {
  const [pathname, query = ''] = path.split('?');
  const params = new URLSearchParams(query);
  const parts = pathname.split('/').filter(Boolean);
  // /api/v1/… or /apis/<group>/<version>/…
  let rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : parts;
  const legacyWatch = rest[0] === 'watch';
  if (legacyWatch) rest = rest.slice(1);
  if (rest[0] === 'namespaces' && rest.length >= 3) rest = rest.slice(2);
  const [resource = pathname || '/', name, subresource] = rest;
  const kind = subresource ? `${resource}/${subresource}` : resource;
  const watching = legacyWatch || params.get('watch') === 'true' || params.get('watch') === '1';
  const verb =
    method === 'GET' ? (watching ? 'watch' : name ? 'get' : 'list')
    : method === 'POST' ? 'create'
    : method === 'PUT' ? 'update'
    : method.toLowerCase();
  return `${verb} ${kind}`;
}
