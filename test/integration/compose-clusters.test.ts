import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '@eks-upgrade-bot/sim';
import { parseClustersYaml } from '../../src/config/clusters-config.js';

/**
 * `docker compose up` as documented: the bot's mounted clusters file names only clusters of the scenario the
 * simulator service runs, in their regions, so no command meets "No cluster found for name". No container engine
 * runs here, so the compose file itself is read: the simulator's --scenario and the bot's clusters mount.
 */
describe('docker-compose.yml', () => {
  it('mounts a clusters file whose clusters are those of the scenario the simulator runs', () => {
    const compose = parse(readFileSync('docker-compose.yml', 'utf8'));
    const command: string[] = compose.services.simulator.command;
    const scenario = command[command.indexOf('--scenario') + 1];
    const mount = (compose.services.bot.volumes as string[]).find((v) => v.endsWith(':/config/clusters.yaml:ro'))!;
    expect(compose.services.bot.environment.CLUSTERS_FILE).toBe('/config/clusters.yaml');
    const file = mount.split(':')[0];
    const clusters = parseClustersYaml(readFileSync(file, 'utf8')).clusters;
    const simulated = loadScenario(scenario).clusters.map((c: { name: string; region?: string }) => ({ name: c.name, region: c.region ?? 'us-west-2' }));
    for (const cluster of clusters) expect(simulated).toContainEqual({ name: cluster.name, region: cluster.region });
    expect(clusters.length).toBeGreaterThan(0);
  });
});
