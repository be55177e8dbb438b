/**
 * Everything the Slack surface and the commands need: one bag of ports, wired once in src/start-bot.ts.
 */

import type { ClustersConfig } from '../config/clusters-config.js';
import type { Logger } from '../log/logger.js';
import type { AuditLog } from './audit-port.js';
import type { AutoScalingPortFactory } from './aws/autoscaling-port.js';
import type { Clock } from './clock.js';
import type { Ec2PortFactory } from './aws/ec2-port.js';
import type { EksPortFactory } from './aws/eks-port.js';
import type { KubePortFactory } from './kube-port.js';
import type { SsmPortFactory } from './aws/ssm-port.js';
import type { UpgradeControl } from './upgrade-control.js';
import type { WaiverStore } from '../waivers/model/waiver-store.js';
import type { RolloutControl } from './rollout-control.js';

/** Who belongs to a Slack user group (S…), for requesters/approvers lists that name groups. */
export interface UsergroupResolver {
  members(usergroupId: string): Promise<string[]>;
}

export interface BotDeps {
  config: ClustersConfig;
  eks: EksPortFactory;
  ssm: SsmPortFactory;
  ec2: Ec2PortFactory;
  /** Auto Scaling for the self-managed groups' preflight checks (optional: without it they are not run). */
  autoScaling?: AutoScalingPortFactory;
  kube: KubePortFactory;
  control: UpgradeControl;
  /** The durable audit trail (Redis stream per cluster). */
  audit: AuditLog;
  usergroups: UsergroupResolver;
  clock: Clock;
  logger: Logger;
  /** Waivers asked for and approved in Slack (Redis); without it plans count clusters.yaml waivers only. */
  waivers?: WaiverStore;
  /** Rollouts in waves (jobs/rollout/rollout-engine.ts); without it `rollout` says it is not available. */
  rollouts?: RolloutControl;
  /** Rehearsal results (Redis), for requireRehearsal; without it a cluster that requires one cannot be started. */
  rehearsals?: import('./rehearsal-store.js').RehearsalStore;
  /** Hands a rehearsal to the workers (queue `rehearsal`); without it `rehearse` says the bot has no rehearsal queue. */
  rehearsalQueue?: import('./rehearsal-store.js').RehearsalQueue;
  /** `doctor`'s checks (src/doctor/run-doctor.ts, wired in src/start-bot.ts); without it `doctor` says it is not available. */
  doctor?: () => Promise<import('./doctor-check.js').DoctorCheck[]>;
  /** Each guard's last evaluation by a job or a soak (Redis), for `status <cluster>`; without it status says it has none. */
  guardEvaluations?: import('./guards/guard-evaluations.js').GuardEvaluationStore;
  /** Clusters of one AWS account and Region `status --all` and `rollout` read at once (STATUS_CONCURRENCY); DEFAULT_STATUS_CONCURRENCY without it. */
  statusConcurrency?: number;
  /** Equal read-only commands asked at once share one read (status, plan); without it each reads on its own. */
  sharedReads?: import('./shared-reads.js').SharedReads;
}
