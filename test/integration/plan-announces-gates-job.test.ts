import { describeJobAsksPlannedGates, LONG_RUNS, RUNS } from './plan-announces-gates-job-case.js';

/** Issue 23, item 4, the job's half, every scenario but the two longest (plan-announces-gates-job-case.ts). */
describeJobAsksPlannedGates(RUNS.filter((scenario) => !LONG_RUNS.includes(scenario)));
