import type { ClustersConfig } from './config/clusters-config.js';
import type { Logger } from './log/logger.js';
import type { AutoScalingPortFactory } from './ports/autoscaling-port.js';
import type { Clock } from './ports/clock.js';
import type { Ec2PortFactory } from './ports/ec2-port.js';
import type { EksPortFactory } from './ports/eks-port.js';
import type { KubePortFactory } from './ports/kube-port.js';
import type { SsmPortFactory } from './ports/ssm-port.js';
import type { UpgradeControl } from './upgrade/upgrade-control.js';

/** Who belongs to a Slack user group (S…), for requesters/approvers lists that name groups. */
export interface UsergroupResolver {
  members(usergroupId: string): Promise<string[]>;
}

/** Everything the Slack surface and the commands need, wired once in src/main.ts. */
export interface BotDeps {
  config: ClustersConfig;
  eks: EksPortFactory;
  ssm: SsmPortFactory;
  ec2: Ec2PortFactory;
  /** Auto Scaling for the self-managed groups' preflight checks (optional: without it they are not run). */
  autoScaling?: AutoScalingPortFactory;
  kube: KubePortFactory;
  control: UpgradeControl;
  usergroups: UsergroupResolver;
  clock: Clock;
  logger: Logger;
}
