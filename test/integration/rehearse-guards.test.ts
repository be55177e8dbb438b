import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { countMutatingCalls, type SimServer } from '@eks-upgrade-bot/sim';
import { rehearseUpgrade } from '../../jobs/rehearsal/rehearse-upgrade.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createLogger } from '../../src/log/logger.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';
import { createQueueKit } from '../../src/store/queue-kit.js';
import { twinPorts } from '../../src/wiring/twin-ports.js';
import { settled, simSources } from './read-path-harness.js';

/**
 * A rehearsal of the demo cluster whose clusters.yaml has two guards (issue 29): the report says which guards a real
 * run would have evaluated and at which steps, and the rehearsal never reads them — the guards' "servers" here
 * count every request and get none.
 */
let real: SimServer;
let trap: Server;
const prefix = freshPrefix('rehearse-guards');
const queues = createQueueKit({ url: redisUrl }, prefix);
afterAll(async () => {
  await queues.close();
  await real?.close();
  await new Promise((resolve) => trap?.close(resolve));
  await deleteKeys(`${prefix}*`);
});

it('reports the guards a real run would evaluate, at which steps, and reads none of them', async () => {
  let requests = 0;
  trap = createServer((_req, res) => {
    requests += 1;
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
  real = await startSim('demo', { speed: 600 });
  await settled(real, 'demo');
  const config = parseClustersConfig({
    clusters: [{
      name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP'],
      guards: [
        { name: 'web available', prometheus: { url, query: 'min(kube_deployment_status_replicas_available{deployment="web"})', breachWhen: '< 2' }, interval: '15s' },
        { name: 'critical alerts', alertmanager: { url, matchers: ['severity="critical"'] } },
      ],
    }],
  }).clusters[0];
  const report = await rehearseUpgrade({
    sources: simSources(real),
    cluster: { name: 'demo', region: 'us-west-2', config },
    to: '1.31',
    answers: 'continue',
    queues,
    twinPorts,
    prefix,
    logger: createLogger({ level: 'silent' }),
    speed: 600,
    timeoutMs: 120_000,
  });
  if (process.env.E2E_PRINT) console.log(report.lines.join('\n'));
  expect(report.state).toBe('succeeded');
  const text = report.lines.join('\n');
  expect(text).toContain("Guards a real run would have evaluated (2; not read here: a rehearsal never reads the real guards):");
  expect(text).toMatch(/ {2}web available \(min\(kube_deployment_status_replicas_available\{deployment="web"\}\) \(breached when < 2\)\), every 15 s during: control plane to 1\.31; [^\n]*managed node group[^\n]*; shown on \d+ gate cards, where Continue is refused while it halts\./);
  expect(text).toMatch(/ {2}critical alerts \(alerts matching severity="critical"\), every 30 s during: control plane to 1\.31/);
  expect(report.guards.map((g) => g.name)).toEqual(['web available', 'critical alerts']);
  expect(report.guards[0].steps).not.toContainEqual(expect.stringMatching(/preflight|verify|approval/i));
  expect(requests).toBe(0);
  expect(countMutatingCalls(real)).toBe(0);
}, 180_000);
