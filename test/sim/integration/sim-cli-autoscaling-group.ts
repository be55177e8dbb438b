import type { SimServer } from '@eks-upgrade-bot/sim';
import { aws } from '../../support/aws-cli.js';

/** The workshop's self-managed group, for sim-cli-autoscaling.test.ts and sim-cli-autoscaling-refresh.test.ts. */
export const GROUP = 'default-selfmng-2025032502302075740000002b';

/** The group as `aws autoscaling describe-auto-scaling-groups` shows it. */
export const group = async (s: SimServer) => (await aws(s, 'autoscaling', 'describe-auto-scaling-groups', '--auto-scaling-group-names', GROUP)).json.AutoScalingGroups[0];
