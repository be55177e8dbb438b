import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The running simulator's clusters as a clusters.yaml for the CLI (one channel, one requester, one approver each); returns the file and the clusters. */
export async function writeFleetClustersFile(simUrl: string, prefix: string): Promise<{ file: string; clusters: Array<{ name: string; region: string }> }> {
  const state = await simState(simUrl);
  const file = join(mkdtempSync(join(tmpdir(), prefix)), 'clusters.yaml');
  writeFileSync(file, `clusters:\n${state.clusters.map((c) => `  - { name: ${c.name}, region: ${c.region}, channels: [C0BENCH], requesters: [U0REQ], approvers: [U0APP] }`).join('\n')}\n`);
  return { file, clusters: state.clusters };
}

/** GET /_sim/state, asked again (up to 3 times) when a loaded machine cuts the answer short. */
async function simState(simUrl: string): Promise<{ clusters: Array<{ name: string; region: string }> }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await (await fetch(`${simUrl}/_sim/state`)).json()) as { clusters: Array<{ name: string; region: string }> };
    } catch (error) {
      if (attempt >= 3) throw new Error(`the simulator's /_sim/state did not answer with JSON in ${attempt} tries`, { cause: error });
    }
  }
}
