import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Cluster } from '@aws-sdk/client-eks';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import type { EksPort, EksPortFactory } from '../../src/ports/aws/eks-port.js';
import { KubeApiError } from '../../src/ports/kube-port.js';

/**
 * How the adapter reaches a cluster: endpoint and CA from DescribeCluster, a bearer token on every request and
 * watch, Status bodies turned into readable errors. A tiny HTTP(S) server stands in for the apiserver and records
 * what arrives; the Kubernetes behaviour itself is covered against the simulator in the integration tests.
 */
type Seen = { method: string; url: string; authorization?: string; contentType?: string };

let closeServer: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeServer?.();
  closeServer = undefined;
});

function handler(seen: Seen[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, contentType: req.headers['content-type'] });
    const json = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const url = new URL(req.url!, 'http://x');
    if (url.pathname.endsWith('/version')) return json(200, { gitVersion: 'v1.30.14-eks-f69f56f' });
    if (url.pathname.endsWith('/api/v1/nodes') && url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'n1', resourceVersion: '8' } } }) + '\n');
      return; // held open like a real watch
    }
    if (url.pathname.endsWith('/api/v1/nodes')) return json(200, { kind: 'NodeList', metadata: { resourceVersion: '7' }, items: [] });
    if (url.pathname.includes('/namespaces/restricted/')) {
      return json(403, { kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message: 'pods "x" is forbidden: User "arn:aws:sts::1:assumed-role/bot" cannot get resource "pods" in the namespace "restricted"' });
    }
    return json(404, { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' });
  };
}

async function listen(server: ReturnType<typeof createHttpServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closeServer = () => new Promise<void>((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });
  return (server.address() as AddressInfo).port;
}

function eksReturning(cluster: Cluster): EksPortFactory {
  return () => ({ describeCluster: async () => cluster }) as unknown as EksPort;
}

describe('createKubePortFactory: connection and authentication', () => {
  it('sends a fresh bearer token on every request and on watches, from the token source', async () => {
    const seen: Seen[] = [];
    const port = await listen(createHttpServer(handler(seen)));
    let n = 0;
    const kubeFor = createKubePortFactory({
      eks: eksReturning({ name: 'demo', endpoint: `http://127.0.0.1:${port}/k8s/demo`, status: 'ACTIVE' }),
      tokenSourceFor: () => ({ token: async () => `token-${++n}` }),
    });
    const kube = await kubeFor({ name: 'demo', region: 'us-west-2' });

    expect(await kube.serverVersion()).toBe('v1.30.14-eks-f69f56f');
    await kube.list('nodes');
    const added: string[] = [];
    const handle = await kube.watch('nodes', {}, { onEvent: (type, o) => added.push(`${type} ${o.metadata.name}`) });
    for (let i = 0; i < 300 && added.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    handle.stop();

    expect(seen.map((s) => `${s.method} ${s.url.split('?')[0]}`)).toEqual([
      'GET /k8s/demo/version',
      'GET /k8s/demo/api/v1/nodes',
      'GET /k8s/demo/api/v1/nodes', // the watch's initial list
      'GET /k8s/demo/api/v1/nodes', // the watch itself
    ]);
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer token-1', 'Bearer token-2', 'Bearer token-3', 'Bearer token-4']);
    expect(new URL(seen[3].url, 'http://x').searchParams.get('resourceVersion')).toBe('7');
    expect(added).toEqual(['ADDED n1']);
  });

  it('by default presents an EKS token signed for this cluster', async () => {
    const seen: Seen[] = [];
    const port = await listen(createHttpServer(handler(seen)));
    const kubeFor = createKubePortFactory({
      eks: eksReturning({ name: 'demo', endpoint: `http://127.0.0.1:${port}/k8s/demo` }),
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    await (await kubeFor({ name: 'demo', region: 'eu-west-1' })).serverVersion();
    const token = seen[0].authorization!.replace(/^Bearer /, '');
    expect(token.startsWith('k8s-aws-v1.')).toBe(true);
    const url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString());
    expect(url.host).toBe('sts.eu-west-1.amazonaws.com');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host;x-k8s-aws-id');
  });

  it('trusts the cluster CA from DescribeCluster for an https endpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-ca-'));
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
        '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
      const cert = readFileSync(join(dir, 'cert.pem'));
      const seen: Seen[] = [];
      const server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, handler(seen));
      const port = await listen(server as unknown as ReturnType<typeof createHttpServer>);
      const endpoint = `https://127.0.0.1:${port}`;
      const tokenSourceFor = () => ({ token: async () => 't' });

      const trusted = createKubePortFactory({ eks: eksReturning({ name: 'demo', endpoint, certificateAuthority: { data: cert.toString('base64') } }), tokenSourceFor });
      expect(await (await trusted({ name: 'demo', region: 'us-west-2' })).serverVersion()).toBe('v1.30.14-eks-f69f56f');

      const untrusted = createKubePortFactory({ eks: eksReturning({ name: 'demo', endpoint }), tokenSourceFor });
      const error = await (await untrusted({ name: 'demo', region: 'us-west-2' })).serverVersion().catch((e) => e);
      expect(error).toBeInstanceOf(KubeApiError);
      expect(error.message).toMatch(/^reading the apiserver version in cluster demo failed: the Kubernetes API could not be reached/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('explains an apiserver refusal with the operation, the Status and what to do', async () => {
    const seen: Seen[] = [];
    const port = await listen(createHttpServer(handler(seen)));
    const kubeFor = createKubePortFactory({
      eks: eksReturning({ name: 'demo', endpoint: `http://127.0.0.1:${port}/k8s/demo` }),
      tokenSourceFor: () => ({ token: async () => 't' }),
    });
    const kube = await kubeFor({ name: 'demo', region: 'us-west-2' });
    const error = await kube.get('pods', 'x', 'restricted').catch((e) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect(error.code).toBe(403);
    expect(error.reason).toBe('Forbidden');
    expect(error.message).toBe(
      'reading pod restricted/x in cluster demo failed: 403 Forbidden: pods "x" is forbidden: User "arn:aws:sts::1:assumed-role/bot" cannot get resource "pods" in the namespace "restricted"; ' +
        "grant the bot's Kubernetes identity this permission: apply deploy/rbac/cluster-role.yaml and put the bot's IAM role in its group eks-upgrade-bot with an access entry (docs/permissions.md)",
    );
    expect(error.cause).toBeDefined();
    expect(await kube.get('nodes', 'missing')).toBeUndefined();
  });

  it('says when the cluster has no endpoint yet, and retries DescribeCluster next time', async () => {
    let calls = 0;
    const eks: EksPortFactory = () =>
      ({ describeCluster: async () => (++calls === 1 ? { name: 'demo', status: 'CREATING' } : { name: 'demo', endpoint: 'http://127.0.0.1:1' }) }) as unknown as EksPort;
    const kubeFor = createKubePortFactory({ eks, tokenSourceFor: () => ({ token: async () => 't' }) });
    await expect(kubeFor({ name: 'demo', region: 'us-west-2' })).rejects.toThrow(/no API endpoint yet \(status CREATING\)/);
    await expect(kubeFor({ name: 'demo', region: 'us-west-2' })).resolves.toBeDefined();
    expect(calls).toBe(2);
  });

  it('passes a DescribeCluster failure through unchanged, so callers can branch on its name', async () => {
    const notFound = Object.assign(new Error('No cluster found for name: ghost.'), { name: 'ResourceNotFoundException', $metadata: {} });
    const eks: EksPortFactory = () => ({ describeCluster: async () => Promise.reject(notFound) }) as unknown as EksPort;
    const kubeFor = createKubePortFactory({ eks, tokenSourceFor: () => ({ token: async () => 't' }) });
    await expect(kubeFor({ name: 'ghost', region: 'us-west-2' })).rejects.toBe(notFound);
  });

  it('says that credentials are missing, not that the cluster is unreachable, when no token can be made', async () => {
    const seen: Seen[] = [];
    const port = await listen(createHttpServer(handler(seen)));
    const kubeFor = createKubePortFactory({
      eks: eksReturning({ name: 'demo', endpoint: `http://127.0.0.1:${port}/k8s/demo` }),
      credentials: async () => {
        throw Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
      },
    });
    const error = await (await kubeFor({ name: 'demo', region: 'us-west-2' })).list('nodes').catch((e) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect(error.reason).toBe('NoCredentials');
    expect(error.message).toMatch(/^listing nodes in cluster demo failed: creating a Kubernetes token for cluster demo failed: no usable AWS credentials/);
    expect(seen).toHaveLength(0); // nothing unauthenticated went out
  });
});
