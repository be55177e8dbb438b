import { parseClustersConfig, type ClustersConfig } from '../config/clusters-config.js';
import { formatMinor, nextMinor, parseMinor } from '../domain/minor-version.js';

/**
 * Who is in the playground's workspace and what clusters.yaml lets each of them do: a requester who is also an
 * approver (so the two-person rule is what stops her approving her own upgrade), an approver who may not start
 * upgrades, and someone the config does not name at all, so every refusal the bot can give is one click away.
 */
export const PLAYGROUND_CHANNEL = { id: 'C0PLAYGRND', name: 'platform-ops' };

export interface PlaygroundUser {
  id: string;
  name: string;
  role: 'requester' | 'approver' | 'bystander';
  /** What the user picker says about them. */
  can: string;
}

export const PLAYGROUND_USERS: PlaygroundUser[] = [
  { id: 'U0ALICE', name: 'alice', role: 'requester', can: 'requester (and approver): starts upgrades; the two-person rule keeps her from approving her own' },
  { id: 'U0BOB', name: 'bob', role: 'approver', can: 'approver: answers gates, Pause, Resume, Abort; may not start upgrades' },
  { id: 'U0CAROL', name: 'carol', role: 'bystander', can: 'not in clusters.yaml: may read status and plans, nothing more' },
];

const idsWith = (...roles: PlaygroundUser['role'][]) => PLAYGROUND_USERS.filter((u) => roles.includes(u.role)).map((u) => u.id);

/** clusters.yaml for every cluster of the scenario, driven from the playground's one channel. */
export function playgroundClustersConfig(clusters: Array<{ name: string; region: string }>): ClustersConfig {
  return parseClustersConfig({
    defaults: {
      channels: [PLAYGROUND_CHANNEL.id],
      requesters: idsWith('requester'),
      approvers: idsWith('requester', 'approver'),
      twoPersonRule: true,
    },
    clusters: clusters.map(({ name, region }) => ({ name, region })),
  });
}

/** The commands offered under the composer, for the scenario's first cluster and its next minor version. */
export function exampleCommands(cluster?: { name: string; version: string }): string[] {
  if (!cluster) return ['help'];
  const current = parseMinor(cluster.version);
  const next = current ? formatMinor(nextMinor(current)) : '<minor>';
  return ['help', `status ${cluster.name}`, `plan ${cluster.name} --to ${next}`, `start ${cluster.name} --to ${next}`, `jobs ${cluster.name}`];
}
