/**
 * Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource) as the sim needs them: CPU in millicores
 * and memory in bytes, so requests can be summed and compared with a node's allocatable.
 */
const SUFFIXES: Record<string, number> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
  Pi: 1024 ** 5,
};

const QUANTITY = /^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)(m|k|M|G|T|P|Ki|Mi|Gi|Ti|Pi)?$/;

/** The quantity as a plain number of base units; 0 for absent or unparsable values (they request nothing). */
export function parseQuantity(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return 0;
  const match = QUANTITY.exec(value.trim());
  if (!match) return 0;
  return Number(match[1]) * SUFFIXES[match[2] ?? ''];
}

export function cpuMillis(value: unknown): number {
  return Math.round(parseQuantity(value) * 1000);
}

export function memoryBytes(value: unknown): number {
  return Math.round(parseQuantity(value));
}

/** Resources the sim packs by: CPU millicores, memory bytes and the pod count. */
export interface Resources {
  cpu: number;
  memory: number;
  pods: number;
}

export const NO_RESOURCES: Resources = { cpu: 0, memory: 0, pods: 0 };

export function addResources(a: Resources, b: Resources): Resources {
  return { cpu: a.cpu + b.cpu, memory: a.memory + b.memory, pods: a.pods + b.pods };
}

export function subtractResources(a: Resources, b: Resources): Resources {
  return { cpu: a.cpu - b.cpu, memory: a.memory - b.memory, pods: a.pods - b.pods };
}

export function fitsWithin(request: Resources, available: Resources): boolean {
  return request.cpu <= available.cpu && request.memory <= available.memory && request.pods <= available.pods;
}

/** A node's status.capacity / status.allocatable map read into Resources. */
export function readResourceList(list: Record<string, unknown> | undefined): Resources {
  return { cpu: cpuMillis(list?.cpu), memory: memoryBytes(list?.memory), pods: Math.floor(parseQuantity(list?.pods)) };
}

/** Resources formatted as Kubernetes prints them (cpu in m, memory in Ki). */
export function formatResourceList(r: Resources): { cpu: string; memory: string; pods: string } {
  const cpu = r.cpu % 1000 === 0 ? String(r.cpu / 1000) : `${r.cpu}m`;
  return { cpu, memory: `${Math.round(r.memory / 1024)}Ki`, pods: String(r.pods) };
}
