/**
 * Aligned columns for the terminal: each column as wide as its widest cell, two spaces between columns, the last
 * column left ragged so long text is not padded. Pure; no colours (output is often piped into files and tickets).
 */
export function textTable(header: string[], rows: string[][], indent = ''): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  return all.map((row) =>
    `${indent}${row
      .map((cell, column) => (column === row.length - 1 ? cell ?? '' : (cell ?? '').padEnd(widths[column])))
      .join('  ')}`.trimEnd(),
  );
}

/** Wraps `text` at `width` on word boundaries, indenting continuation lines. */
export function wrapText(text: string, width: number, indent: string): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : `${indent}${l}`));
}
