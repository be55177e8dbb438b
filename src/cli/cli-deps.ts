/**
 * What the CLI's commands get from the entry point (src/cli/main.ts wires the real ones; tests their own), and the
 * exit codes they return.
 */

import type { AuditLog } from '../ports/audit-port.js';
import type { AwsProbePort } from '../ports/doctor-check.js';
import type { GuardEvaluationStore } from '../ports/guards/guard-evaluations.js';
import type { SnapshotSources } from '../cluster-reader/collect-snapshot.js';
import type { WaiverConnection } from '../waivers/store/connect-waiver-store.js';

export interface CliDeps {
  /** snapshot: writes the twin file (default: node:fs writeFileSync). */
  writeFile?: (path: string, text: string) => void;
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Ports for an optional endpoint override (--endpoint-url). */
  sources(endpointUrl?: string): SnapshotSources;
  fileExists?: (path: string) => boolean;
  /** The audit trail in Redis (REDIS_URL, QUEUE_PREFIX), opened only by `audit`. */
  auditLog?: (env: NodeJS.ProcessEnv) => { audit: AuditLog; close(): Promise<void> } | Promise<{ audit: AuditLog; close(): Promise<void> }>;
  /** Slack waivers from Redis (REDIS_URL); absent or unreachable: clusters.yaml waivers alone, and the plan says so. */
  waiverStore?: (env: NodeJS.ProcessEnv) => Promise<WaiverConnection>;
  /** Each guard's last evaluation from the bot's Redis (REDIS_URL), for `status <cluster>`; absent or unreachable: status says so. */
  guardEvaluations?: (env: NodeJS.ProcessEnv) => Promise<{ store?: GuardEvaluationStore; close(): Promise<void> }>;
  /** doctor's STS/IAM/EC2-DryRun probes (default: the SDK adapter with the standard chain). */
  awsProbes?: (endpointUrl?: string) => AwsProbePort;
}

export const EXIT = { ok: 0, error: 1, blocking: 2 } as const;
