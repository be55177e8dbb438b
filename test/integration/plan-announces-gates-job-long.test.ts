import { describeJobAsksPlannedGates, LONG_RUNS } from './plan-announces-gates-job-case.js';

/** Issue 23, item 4, the job's half, its two longest scenarios (plan-announces-gates-job-case.ts). */
describeJobAsksPlannedGates(LONG_RUNS);
