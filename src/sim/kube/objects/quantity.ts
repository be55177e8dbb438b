/**
 * resource.Quantity parsing for requests and capacity: "250m" CPU, "1Gi"/"8023360Ki"/"512M" memory, "29" pods.
 * Returns the value in base units (cores, bytes, count) as a float.
 */
const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

export function parseQuantity(value: string | number | undefined): number {
  if (value === undefined || value === null || value === '') return 0;
  if (typeof value === 'number') return value;
  const match = /^([+-]?[0-9.]+(?:[eE][+-]?\d+)?)(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.exec(value.trim());
  if (!match) throw new Error(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': ${value}`);
  return Number(match[1]) * SUFFIX[match[2] ?? ''];
}

/** Millicores, as the scheduler accounts CPU. */
export function milliCpu(value: string | number | undefined): number {
  return Math.round(parseQuantity(value) * 1000);
}
