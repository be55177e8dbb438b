import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The running simulator's clusters as a clusters.yaml for the CLI (one channel, one requester, one approver each); returns the file and the clusters. */
export async function writeFleetClustersFile(simUrl: string, prefix: string): Promise<{ file: string; clusters: Array<{ name: string; region: string }> }> {
  const state = (await (await fetch(`${simUrl}/_sim/state`)).json()) as { clusters: Array<{ name: string; region: string }> };
  const file = join(mkdtempSync(join(tmpdir(), prefix)), 'clusters.yaml');
  writeFileSync(file, `clusters:\n${state.clusters.map((c) => `  - { name: ${c.name}, region: ${c.region}, channels: [C0BENCH], requesters: [U0REQ], approvers: [U0APP] }`).join('\n')}\n`);
  return { file, clusters: state.clusters };
}
