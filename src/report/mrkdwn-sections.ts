/** Lines packed into as few Block Kit section texts as they need: a section holds at most 3000 characters. */
export function packIntoSections(lines: readonly string[], limit = 2900): string[] {
  const sections: string[] = [];
  for (const line of lines) {
    const last = sections.at(-1);
    if (last !== undefined && last.length + line.length + 1 <= limit) sections[sections.length - 1] = `${last}\n${line}`;
    else sections.push(line.slice(0, limit));
  }
  return sections;
}
