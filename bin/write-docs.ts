// `npm run docs`: writes the documentation generated from code — today docs/finding-codes.md, from the finding-code
// registry (src/planning/checks/finding-codes.ts). test/unit/finding-codes-doc.test.ts fails until it has been run
// after a change to the registry.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FINDING_CODES_DOC, renderFindingCodesMarkdown } from '../src/report/finding-codes-markdown.js';

const root = join(import.meta.dirname, '..');
const generated: Record<string, string> = { [FINDING_CODES_DOC]: renderFindingCodesMarkdown() };
for (const [path, text] of Object.entries(generated)) {
  const file = join(root, path);
  let before: string | undefined;
  try {
    before = readFileSync(file, 'utf8');
  } catch {
    before = undefined;
  }
  if (before === text) {
    console.log(`${path}: up to date`);
    continue;
  }
  writeFileSync(file, text);
  console.log(`${path}: written`);
}
