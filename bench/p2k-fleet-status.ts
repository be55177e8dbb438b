import { checkMessageBlocks } from '@eks-upgrade-bot/sim/kit';
import type { ClusterStatus } from '../src/report/cluster-status.js';
import { renderStatusMessages } from '../src/report/blocks/render-status-blocks.js';
import { type Figure, ms } from './kit/figures.js';
import { writeFleetClustersFile } from './kit/fleet-clusters-file.js';
import { measureCommand, resetSimRequests, simRequests, sumCounts } from './kit/measure-command.js';
import { cpuMsOf, SIM_NICE, startSimProcess } from './kit/processes.js';

/**
 * P2k: ten times P2's fleet. `npx eks-upgrade status --all` over BENCH_P2K_CLUSTERS (default 1,000) simulated
 * clusters of the `fleet` scenario with 100 ms added to every AWS and Kubernetes answer, in a fresh process (cold),
 * with the simulator at a lower CPU priority than the command (SIM_NICE: AWS's work is not on the user's machine).
 * Goals: ≤ 5 s beyond the CLI's own start-up (`--help`, the faster of two in the same run), peak RSS of the CLI ≤ 400 MB
 * (GNU time), and the same statuses rendered as the bot's Slack answer (renderStatusMessages, what `/eks-upgrade
 * status --all` posts) pass the fake Slack's Block Kit checks. The run prints `--output json` so the driver can
 * render the Slack form from exactly what was read; the read is the same as the text table's.
 */
const CLUSTERS = Number(process.env.BENCH_P2K_CLUSTERS ?? 1000);
const BEYOND_STARTUP_MS = 5000;
const PEAK_RSS_MB = 400;

export async function p2kFleetStatus(): Promise<Figure[]> {
  const sim = await startSimProcess(['--scenario', 'fleet', '--clusters', String(CLUSTERS), '--speed', '60', '--latency-ms', '100'], { yieldCpu: true });
  try {
    const { file, clusters } = await writeFleetClustersFile(sim.url, 'bench-p2k-');
    const env = { AWS_ENDPOINT_URL: sim.url, AWS_REGION: 'us-west-2', AWS_ACCESS_KEY_ID: 'bench', AWS_SECRET_ACCESS_KEY: 'bench', ...(process.env.STATUS_CONCURRENCY ? { STATUS_CONCURRENCY: process.env.STATUS_CONCURRENCY } : {}) };
    // Twice, the faster counting: the first start after `npm run build` also writes the bundle's V8 code cache.
    const help = [await measureCommand(['bin/eks-upgrade.js', '--help'], env), await measureCommand(['bin/eks-upgrade.js', '--help'], env)];
    const startup = help[0].ms <= help[1].ms ? help[0] : help[1];
    await resetSimRequests(sim.url);
    const simCpuBefore = cpuMsOf(sim.process.pid!);
    const all = await measureCommand(['bin/eks-upgrade.js', 'status', '--all', '--clusters-file', file, '--output', 'json'], env);
    const simCpu = cpuMsOf(sim.process.pid!) - simCpuBefore;
    const counts = await simRequests(sim.url);
    const statuses = parseStatuses(all.stdout, all.stderr);
    const read = statuses.filter((s) => !s.error).length;
    const messages = renderStatusMessages(statuses, { maxMessages: 4 });
    const slackProblems = messages.flatMap((message, i) => checkMessageBlocks(message.blocks).map((p) => `message ${i + 1}: ${p}`));
    const beyond = all.ms - startup.ms;
    return [
      {
        id: 'P2k',
        name: `status --all, ${CLUSTERS} clusters, +100 ms per AWS/kube call, cold (${statuses.length} rows, ${read} read)`,
        value: `${ms(all.ms)}, ${ms(beyond)} beyond start-up; CPU ${ms(all.cpuMs)} (simulator, at nice ${SIM_NICE}: ${ms(simCpu)}), peak RSS ${Math.round(all.peakRssMb)} MB; ${sumCounts(counts.aws)} AWS + ${sumCounts(counts.kube)} Kubernetes requests; Slack: ${messages.length} messages, ${slackProblems.length === 0 ? 'within limits' : slackProblems.slice(0, 3).join('; ')}`,
        goal: `≤ ${BEYOND_STARTUP_MS} ms beyond start-up, RSS ≤ ${PEAK_RSS_MB} MB, Slack limits`,
        baseline: `CLI start-up (--help): ${ms(startup.ms)}`,
        met: beyond <= BEYOND_STARTUP_MS && all.peakRssMb <= PEAK_RSS_MB && slackProblems.length === 0 && statuses.length >= CLUSTERS && clusters.length >= CLUSTERS,
      },
    ];
  } finally {
    await sim.stop();
  }
}

function parseStatuses(stdout: string, stderr: string): ClusterStatus[] {
  try {
    return (JSON.parse(stdout) as { clusters: ClusterStatus[] }).clusters;
  } catch {
    throw new Error(`status --all printed no JSON: ${stdout.slice(0, 300)}${stderr.slice(0, 300)}`);
  }
}
