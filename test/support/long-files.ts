/**
 * The suite's longest files, longest first, as measured (docs/benchmarks.md, "Test suite"): each file's whole wall
 * time, its beforeAll included (vitest's JSON report counts only the tests, and an end-to-end file that runs its
 * upgrade in beforeAll shows there as 0 s), from 15 s to 60 s on a 3-worker run, most of it waiting (real processes,
 * simulated time, Prometheus scrapes, aws CLI calls).
 *
 * vitest runs the files it has timings for longest first, but a fresh clone (CI, every run) has none, and then it
 * runs the largest files first: a 4-line file that runs 70 s of scenarios started last and ran alone for a minute
 * at the end while the other worker had nothing left to do. LongFilesFirst (long-files-first.ts, the sequencer
 * vitest.config.ts names) starts these first. An entry whose file is gone is ignored by the sequencer (it only costs
 * the order), and fails test/unit/long-files.test.ts, so the list stays true.
 */
export const LONG_FILES = [
  'test/integration/plan-announces-gates.test.ts',
  'test/e2e/upgrade-guard-breach.test.ts',
  'test/e2e/upgrade-guard-alertmanager.test.ts',
  'test/integration/engine-guards-prometheus.test.ts',
  'test/e2e/upgrade-guard-cloudwatch.test.ts',
  'test/e2e/burst-several-workers.test.ts',
  'test/integration/rollout-soak-guards.test.ts',
  'test/e2e/upgrade-guard-recovers.test.ts',
  'test/integration/engine-guards-alertmanager.test.ts',
  'test/e2e/nothing-left-behind.test.ts',
  'test/integration/plan-announces-gates-job-long.test.ts',
  'test/integration/plan-announces-gates-job.test.ts',
  'test/integration/rehearse-workshop-cli.test.ts',
  'test/e2e/rehearsal-click-everything.test.ts',
  'test/e2e/redis-cluster-failover.test.ts',
  'test/integration/plan-equals-job-karpenter.test.ts',
  'test/e2e/slack-upgrade-flow.test.ts',
  'test/e2e/fleet-digest.test.ts',
  'test/e2e/rollback-force.test.ts',
  'test/e2e/upgrade-crash.test.ts',
  'test/e2e/fleet-rollout.test.ts',
  'test/e2e/rollback-workshop.test.ts',
  'test/e2e/rollback-crash.test.ts',
  'test/e2e/upgrade-workshop.test.ts',
  'test/integration/lost-answers-worker-restart.test.ts',
  'test/integration/startup-failures-process.test.ts',
  'test/integration/karpenter-step.test.ts',
  'test/integration/lost-answers.test.ts',
  'test/integration/engine-crash-self-managed.test.ts',
  'test/integration/rehearse-karpenter.test.ts',
  'test/integration/engine-guards-unreadable.test.ts',
  'test/sim/integration/sim-cli-autoscaling.test.ts',
  'test/sim/integration/sim-cli-autoscaling-refresh.test.ts',
  'test/sim/integration/sim-cloudwatch-cli.test.ts',
  'test/sim/integration/sim-karpenter-scale-budget.test.ts',
  'test/sim/integration/sim-cli-aws.test.ts',
  'test/sim/integration/sim-iam-simulate-dry-run.test.ts',
];

/** Where `file` (a path from the repository's root) comes in LONG_FILES; after every listed file when it is not listed. */
export function longFileRank(file: string): number {
  const at = LONG_FILES.indexOf(file);
  return at < 0 ? LONG_FILES.length : at;
}

/**
 * The order the suite runs `files` in (each a path from the repository's root and its vitest project), given in
 * vitest's own order: one project after another, each project's long files first in LONG_FILES's order, and the
 * project holding the longest file first.
 *
 * Why one project after another: with `isolate: false` vitest keeps a worker (and every module it has imported) for
 * the next file only when that file is of the same project; a file of another project in between stops the worker,
 * and the next one imports the SDKs, client-node and Bolt again (4–6 s on a loaded machine). Moving LONG_FILES to the
 * front of the whole run interleaved the integration and end-to-end projects: the run changed project at seven places
 * (about two workers restarted at each) where two are enough.
 */
export function suiteOrder<T extends { file: string; project: string }>(files: T[]): T[] {
  const projectRank = new Map<string, number>();
  for (const { file, project } of files) projectRank.set(project, Math.min(projectRank.get(project) ?? LONG_FILES.length, longFileRank(file)));
  const firstSeen = [...new Set(files.map((entry) => entry.project))];
  const blockOf = (project: string) => [projectRank.get(project)!, firstSeen.indexOf(project)];
  // Array.prototype.sort is stable: files of equal rank keep vitest's order.
  return [...files].sort((a, b) => {
    const [ra, fa] = blockOf(a.project);
    const [rb, fb] = blockOf(b.project);
    return ra - rb || fa - fb || longFileRank(a.file) - longFileRank(b.file);
  });
}
