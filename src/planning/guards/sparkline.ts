/**
 * A guard's last 30 minutes in one line of Unicode blocks (▁▂▃▄▅▆▇█) for the breach card: low values low, high
 * values high, scaled between the series' own minimum and maximum (the threshold is printed beside it), a gap as a
 * space. A flat series is a flat line in the middle.
 */

const BLOCKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

export function renderSparkline(values: ReadonlyArray<number | undefined>): string {
  const known = values.filter((value): value is number => value !== undefined && Number.isFinite(value));
  if (known.length === 0) return '';
  const low = Math.min(...known);
  const high = Math.max(...known);
  return values
    .map((value) => {
      if (value === undefined || !Number.isFinite(value)) return ' ';
      if (high === low) return BLOCKS[3];
      return BLOCKS[Math.min(BLOCKS.length - 1, Math.floor(((value - low) / (high - low)) * BLOCKS.length))];
    })
    .join('');
}

/** The sparkline's window and resolution: 30 minutes in 30 points, one a minute. */
export const SPARKLINE_WINDOW_MS = 30 * 60_000;
export const SPARKLINE_STEP_MS = 60_000;
