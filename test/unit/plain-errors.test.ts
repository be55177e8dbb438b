import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseEnv } from '../../src/config/env-config.js';
import { loadClustersConfig, parseClustersYaml } from '../../src/config/clusters-config.js';
import { describeAwsError } from '../../src/aws/describe-aws-error.js';
import { main } from '../../src/cli/main.js';
import { runCli } from '../../src/cli/run-cli.js';
import type { SnapshotSources } from '../../src/cluster-reader/collect-snapshot.js';

/** Issue 25 item 2: every configuration or start problem in plain words, all at once, naming what was tried. */
const base = { SLACK_BOT_TOKEN: 'xoxb-1-2-abc', SLACK_SIGNING_SECRET: 'a-signing-secret' };

function messageOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected an error');
}

describe('environment errors', () => {
  it('lists every bad variable at once, each by name, in plain words', () => {
    const message = messageOf(() => parseEnv({ SLACK_BOT_TOKEN: 'xoxb-1', PORT: 'eighty', ROLE: 'both' }));
    expect(message.split('\n')).toEqual([
      'environment: PORT must be a number (got "eighty")',
      'environment: ROLE must be one of all, web, worker (got "both")',
      'environment: SLACK_SIGNING_SECRET is required (or set SLACK_APP_TOKEN to use Socket Mode, which needs no signing secret)',
    ]);
    expect(message).not.toMatch(/Invalid input|NaN/);
  });

  it('says how long a signing secret must be, without echoing it', () => {
    const message = messageOf(() => parseEnv({ ...base, SLACK_SIGNING_SECRET: 'short' }));
    expect(message).toMatch(/SLACK_SIGNING_SECRET is too short: it must be at least 8 characters/);
    expect(message).not.toContain('"short"');
  });

  it('needs no signing secret in Socket Mode', () => {
    expect(parseEnv({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1-A1-2-abc' }).SLACK_SIGNING_SECRET).toBeUndefined();
  });
});

describe('clusters.yaml errors', () => {
  it('lists every problem with its path and suggests the key a typo meant', () => {
    const yaml = [
      'clusters:',
      '  - name: demo',
      '    region: us-east-1',
      '    channels: [C0DEMO]',
      '    requesters: [U0REQ]',
      '    aprovers: [U0APP]',
      '    gateTimeoutMinutes: soon',
    ].join('\n');
    const lines = messageOf(() => parseClustersYaml(yaml)).split('\n');
    expect(lines[0]).toBe('2 problems:');
    expect(lines).toContain('clusters.yaml: clusters[0] (demo).gateTimeoutMinutes: must be a number (got "soon")');
    expect(lines).toContain('clusters.yaml: clusters[0] (demo): unknown key "aprovers": did you mean approvers?');
  });

  it('shows the line a YAML syntax error is on', () => {
    const yaml = ['clusters:', '  - name: demo', '    region: us-east-1', '   channels: [C0DEMO]'].join('\n');
    const message = messageOf(() => parseClustersYaml(yaml));
    expect(message).toMatch(/^clusters\.yaml: not valid YAML at line 4, column \d+: /);
    expect(message).toContain('  4 |    channels: [C0DEMO]');
    expect(message).not.toMatch(/:\s*$/);
  });

  it('names --clusters-file and CLUSTERS_FILE when the CLI cannot read the file', async () => {
    const stderr: string[] = [];
    const code = await runCli(['plan', 'demo', '--clusters-file', '/nonexistent/clusters.yaml'], {
      env: {},
      stdout: () => undefined,
      stderr: (text) => void stderr.push(text),
      sources: () => ({}) as SnapshotSources,
    });
    expect(code).toBe(1);
    expect(stderr.join('')).toMatch(/cannot read the clusters file \(ENOENT\).*--clusters-file.*CLUSTERS_FILE/);
    await expect(loadClustersConfig('/nonexistent/clusters.yaml')).rejects.toThrow(/set CLUSTERS_FILE/);
  });
});

describe('unreachable services', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('names the AWS endpoint that was tried, not AWS_ENDPOINT_URL', () => {
    vi.stubEnv('AWS_ENDPOINT_URL', 'http://127.0.0.1:4566');
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 1, $metadata: { attempts: 1 } });
    const text = describeAwsError('DescribeCluster for demo', error);
    expect(text).toContain('The AWS endpoint 127.0.0.1:1 could not be reached');
    expect(text).not.toContain('4566');
  });

  it('audit with Redis down says so in a sentence', async () => {
    vi.stubEnv('REDIS_URL', 'redis://127.0.0.1:1');
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => (stderr.push(String(text)), true));
    expect(await main(['audit', 'demo'])).toBe(1);
    expect(stderr.join('')).toBe("eks-upgrade: could not read the audit trail: Redis at redis://127.0.0.1:1 is not answering. Start Redis, or set REDIS_URL (and QUEUE_PREFIX) to the bot's Redis.\n");
  });
});
