/**
 * How a cost grows with the work: for points (size, cost) sorted by size, the exponent k of cost ∝ size^k between
 * each pair of neighbours (log-log slope). k ≤ 1 is linear or better; a fixed part (start-up) makes it look better
 * than it is, so callers pass the cost beyond a same-run baseline. Pure, for bench/scale-cost.ts.
 */
export interface GrowthPoint {
  size: number;
  cost: number;
}

/** Exponents between neighbouring points (sizes ascending); NaN where a cost is not positive (see atLeastNoise). */
export function growthExponents(points: GrowthPoint[]): number[] {
  const sorted = [...points].sort((a, b) => a.size - b.size);
  const exponents: number[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const [a, b] = [sorted[i - 1], sorted[i]];
    exponents.push(a.cost > 0 && b.cost > 0 && b.size !== a.size ? Math.log(b.cost / a.cost) / Math.log(b.size / a.size) : NaN);
  }
  return exponents;
}

/** The cost of one more unit of work between neighbouring sizes: (cost₂ − cost₁) / (size₂ − size₁). */
export function marginalCosts(points: GrowthPoint[]): number[] {
  const sorted = [...points].sort((a, b) => a.size - b.size);
  return sorted.slice(1).map((b, i) => (b.cost - sorted[i].cost) / (b.size - sorted[i].size));
}

/**
 * One word for a curve: 'sub-linear' (every step k < 0.9), 'linear' (every step ≤ 1.15, some near 1), 'super-linear'
 * (some step above 1.15, or — a fixed start-up cost hides growth from the slope — the largest size costing over a
 * quarter more than the smaller sizes' cost per unit predicts: excessOverLinear — and by more than `noiseFloor`, the
 * measurement's own resolution and run-to-run noise in the cost's unit), 'unknown' (too few points or a cost not measured). The bands absorb
 * the noise of a shared machine; a quadratic curve is far outside them.
 */
export function curveShape(points: GrowthPoint[], noiseFloor = 0): 'sub-linear' | 'linear' | 'super-linear' | 'unknown' {
  const floored = atLeastNoise(points, noiseFloor);
  const exponents = growthExponents(floored);
  if (exponents.length === 0 || exponents.some((k) => Number.isNaN(k))) return 'unknown';
  if (exponents.some((k) => k > 1.15)) return 'super-linear';
  const largest = Math.max(...floored.map((p) => p.cost));
  if (excessOverLinear(floored) > 0.25 && excessOverLinear(floored) * largest > noiseFloor) return 'super-linear';
  if (exponents.every((k) => k < 0.9)) return 'sub-linear';
  return 'linear';
}

/**
 * Costs below the noise floor raised to it: under it, 0 ms and 50 ms beyond start-up cannot be told apart (a CPU cost
 * the start-up's own variation hides), and a slope through them is noise, or undefined at 0. A curve that rises
 * out of the floor still shows its growth from there; one within it is flat. NaN (not measured) stays NaN.
 */
export function atLeastNoise(points: GrowthPoint[], noiseFloor: number): GrowthPoint[] {
  return noiseFloor > 0 ? points.map((p) => ({ size: p.size, cost: Number.isNaN(p.cost) ? NaN : Math.max(p.cost, noiseFloor) })) : points;
}

/**
 * How far the largest size's cost exceeds the straight line through the smaller sizes (their cost of one more unit,
 * taken where it is highest, carried on to the largest size), as a share of that cost: 0 for a straight or
 * flattening curve, 0.75 when three quarters of it is more than linear growth explains. Needs three points.
 */
export function excessOverLinear(points: GrowthPoint[]): number {
  const sorted = [...points].sort((a, b) => a.size - b.size);
  if (sorted.length < 3) return 0;
  const marginal = marginalCosts(sorted.slice(0, -1));
  const [before, last] = [sorted[sorted.length - 2], sorted[sorted.length - 1]];
  const predicted = before.cost + Math.max(0, ...marginal) * (last.size - before.size);
  return last.cost > 0 ? Math.max(0, (last.cost - predicted) / last.cost) : 0;
}
