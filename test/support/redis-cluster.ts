import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../src/demo/ensure-redis.js';
import type { RedisTarget } from '../../src/store/redis-connection.js';
import { until } from './until.js';

/**
 * A real Redis Cluster for tests: three masters and three replicas, each a `redis-server --cluster-enabled yes` on
 * free ports of the loopback interface (client port and cluster bus port both picked), joined by
 * `redis-cli --cluster create … --cluster-replicas 1`, and ready once every node reports `cluster_state:ok` and
 * agrees on the slot map. Nothing is persisted (`--appendonly no --save ''`); stop() kills the six processes and
 * removes their directory. A real cluster, so CROSSSLOT, MOVED and a failover are the real server's.
 */
export interface ClusterNode {
  port: number;
  process: ChildProcess;
  /** False once killMaster killed it. */
  alive: boolean;
}

export interface RedisClusterHandle {
  nodes: ClusterNode[];
  /** `127.0.0.1:p1,127.0.0.1:p2,…` as REDIS_CLUSTER_NODES takes it (all six: any live one seeds a client). */
  seeds: string;
  target: RedisTarget;
  /** The port of the master that serves `key`'s slot now. */
  masterOf(key: string): Promise<number>;
  /** A manual failover: CLUSTER FAILOVER on one of the master's replicas; resolves once that replica is master and the cluster is ok. */
  failover(masterPort: number): Promise<number>;
  /** SIGKILLs the master's process; resolves once a replica has taken its slots and the cluster is ok again. */
  killMaster(masterPort: number): Promise<number>;
  stop(): Promise<void>;
}

/** The node timeout the cluster runs with: a killed master's replica is promoted within a few seconds of it. */
const NODE_TIMEOUT_MS = 2_000;

export function haveRedisClusterTools(): boolean {
  return ['redis-server', 'redis-cli'].every((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0);
}

async function withNode<T>(port: number, work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2_000 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

interface NodeLine {
  id: string;
  port: number;
  master: boolean;
  masterId?: string;
  failed: boolean;
  slots: Array<[number, number]>;
}

/** CLUSTER NODES as one node sees it (https://redis.io/docs/latest/commands/cluster-nodes/). */
function parseNodes(text: string): NodeLine[] {
  return text.trim().split('\n').map((line) => {
    const [id, address, flags, masterId, , , , , ...slots] = line.split(' ');
    return {
      id: id!,
      port: Number(address!.split('@')[0]!.split(':').pop()),
      master: flags!.split(',').includes('master'),
      masterId: masterId === '-' ? undefined : masterId,
      failed: /fail/.test(flags!),
      slots: slots.filter((s) => !s.startsWith('[')).map((s) => {
        const [from, to] = s.split('-').map(Number);
        return [from!, to ?? from!] as [number, number];
      }),
    };
  });
}

export async function startRedisCluster(): Promise<RedisClusterHandle> {
  // Skipped on a laptop without them; under CI the tests run and fail with this sentence (as required-tool.ts does).
  if (!haveRedisClusterTools()) throw new Error('the Redis Cluster tests need redis-server and redis-cli on the PATH: install them (apt-get install redis-server redis-tools; .ci/run does)');
  const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const nodes: ClusterNode[] = [];
  const ports = new Set<number>();
  const pick = async () => {
    for (;;) {
      const port = await freePort();
      if (!ports.has(port)) return ports.add(port), port;
    }
  };
  const stop = async () => {
    for (const node of nodes) if (node.alive) node.process.kill('SIGKILL');
    await Promise.all(nodes.map((node) => (node.process.exitCode !== null || node.process.signalCode !== null ? undefined : new Promise((resolve) => node.process.once('exit', resolve)))));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 6; i++) {
      const port = await pick();
      const bus = await pick();
      const child = spawn('redis-server', [
        '--port', String(port), '--cluster-port', String(bus), '--bind', '127.0.0.1',
        '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', String(NODE_TIMEOUT_MS),
        '--appendonly', 'no', '--save', '', '--dir', dir, '--logfile', join(dir, `redis-${port}.log`),
      ], { stdio: 'ignore' });
      nodes.push({ port, process: child, alive: true });
    }
    for (const node of nodes) {
      await until(() => withNode(node.port, async (redis) => (await redis.ping()) === 'PONG').catch(() => false), `redis-server on ${node.port} to answer`, 15_000);
    }
    const create = spawnSync('redis-cli', ['--cluster', 'create', ...nodes.map((node) => `127.0.0.1:${node.port}`), '--cluster-replicas', '1', '--cluster-yes'], { encoding: 'utf8', timeout: 60_000 });
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout.slice(-500)}${create.stderr.slice(-500)}`);
    await untilHealthy(nodes);
    // Ready means able to fail over: every master has a replica connected to it (a replica still syncing cannot take over).
    await until(
      async () => (await Promise.all(nodes.map((node) => withNode(node.port, async (redis) => {
        const role = (await redis.call('ROLE')) as [string, number, unknown[]];
        return role[0] === 'master' ? role[2].length : undefined;
      })))).filter((replicas) => replicas !== undefined).every((replicas) => replicas >= 1),
      'every master of the Redis Cluster to have its replica connected',
      60_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const seeds = nodes.map((node) => `127.0.0.1:${node.port}`).join(',');
  const live = () => nodes.filter((node) => node.alive);
  const view = () => withNode(live()[0]!.port, async (redis) => parseNodes(String(await redis.call('CLUSTER', 'NODES'))));
  const masterOf = async (key: string) => {
    const slot = Number(await withNode(live()[0]!.port, (redis) => redis.call('CLUSTER', 'KEYSLOT', key)));
    const owner = (await view()).find((node) => node.master && !node.failed && node.slots.some(([from, to]) => slot >= from && slot <= to));
    if (!owner) throw new Error(`no master serves slot ${slot}`);
    return owner.port;
  };
  // The replica as the master itself reports it (CLUSTER REPLICAS), connected and in sync, so it can take over.
  const replicaOf = (masterPort: number) =>
    until(
      () => withNode(masterPort, async (redis) => {
        const role = (await redis.call('ROLE')) as [string, number, Array<[string, string, string]>];
        return role[0] === 'master' ? role[2].map(([, port]) => Number(port))[0] : undefined;
      }).catch(() => undefined),
      `the master on ${masterPort} to have a connected replica`,
      30_000,
    );
  const promoted = async (port: number) => {
    await until(() => withNode(port, async (redis) => ((await redis.call('ROLE')) as string[])[0] === 'master').catch(() => false), `the replica on ${port} to become master`, 30_000);
    await untilHealthy(live());
  };
  return {
    nodes,
    seeds,
    target: { url: 'redis://127.0.0.1:6379', cluster: { nodes: nodes.map((node) => ({ host: '127.0.0.1', port: node.port })) } },
    masterOf,
    async failover(masterPort) {
      const replica = await replicaOf(masterPort);
      await withNode(replica, (redis) => redis.call('CLUSTER', 'FAILOVER'));
      await promoted(replica);
      return replica;
    },
    async killMaster(masterPort) {
      const replica = await replicaOf(masterPort);
      const node = nodes.find((n) => n.port === masterPort)!;
      node.alive = false;
      node.process.kill('SIGKILL');
      await promoted(replica);
      return replica;
    },
    stop,
  };
}

/** Every live node says cluster_state:ok, and they all see the same masters holding all 16384 slots. */
async function untilHealthy(nodes: ClusterNode[]): Promise<void> {
  await until(
    async () => {
      const views = await Promise.all(nodes.map((node) => withNode(node.port, async (redis) => ({
        ok: /cluster_state:ok/.test(String(await redis.call('CLUSTER', 'INFO'))),
        masters: parseNodes(String(await redis.call('CLUSTER', 'NODES'))).filter((n) => n.master && !n.failed && n.slots.length > 0).map((n) => n.port).sort().join(','),
      })))).catch(() => undefined);
      return views?.every((v) => v.ok && v.masters === views[0]!.masters);
    },
    'every Redis Cluster node to report cluster_state:ok and agree on the masters',
    60_000,
  );
}
