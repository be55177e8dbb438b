/** One line of the benchmark table: the figure, its goal, a baseline measured in the same run, and whether it meets the goal. */
export interface Figure {
  id: string;
  name: string;
  value: string;
  goal: string;
  baseline: string;
  /** undefined: not measured (value says why). */
  met?: boolean;
}

export interface BenchContext {
  redisUrl: string;
}

export function notMeasured(id: string, name: string, goal: string, why: string): Figure {
  return { id, name, value: `not measured: ${why}`, goal, baseline: '—' };
}

export const ms = (value: number) => `${Math.round(value)} ms`;

/** One line of a script's own figures: `label  key=value  key=value` (numbers to one decimal). */
export function printRow(label: string, values: Record<string, string | number>): void {
  const cells = Object.entries(values).map(([key, value]) => `${key}=${typeof value === 'number' ? value.toFixed(1) : value}`);
  process.stdout.write(`${label.padEnd(34)} ${cells.join('  ')}\n`);
}
