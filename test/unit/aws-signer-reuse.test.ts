import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { afterEach, describe, expect, it } from 'vitest';
import { reusingSigner, sdkClientConfig } from '../../src/aws/aws-client-config.js';

/**
 * reusingSigner keeps one SigV4 signer per client instead of one per request. What must not change: every request is
 * signed with the credentials the client's provider gives at that moment (an assumed role's session renews near its
 * expiry), for the client's region and service. A local server records each request's Authorization header.
 */
let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function recordingServer(): Promise<{ url: string; authorizations: string[] }> {
  const authorizations: string[] = [];
  server = createServer((req, res) => {
    authorizations.push(req.headers.authorization ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ cluster: { name: 'demo', version: '1.30', status: 'ACTIVE' } }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, authorizations };
}

describe('reusingSigner', () => {
  it('signs each request with the credentials of that moment, for the client region and service, as a client without it does', async () => {
    const { url, authorizations } = await recordingServer();
    const sessionsSeen = async (reuse: boolean) => {
      authorizations.length = 0;
      let issued = 0;
      // Each session expires within the SDK's refresh window, so the client asks for new credentials at every request.
      const credentials = async () => {
        issued++;
        return { accessKeyId: `AKIASESSION${issued}`, secretAccessKey: `secret-${issued}`, sessionToken: `token-${issued}`, expiration: new Date(Date.now() + 60_000) };
      };
      const plain = new EKSClient({ ...sdkClientConfig({ region: 'eu-west-1' }, { endpoint: url }), credentials });
      const client = reuse ? reusingSigner(plain) : plain;
      for (let i = 0; i < 3; i++) await client.send(new DescribeClusterCommand({ name: 'demo' }));
      client.destroy();
      return authorizations.map((header) => /Credential=([^/]+)\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(header)?.slice(1).join(' '));
    };

    const reused = await sessionsSeen(true);
    expect(reused).toHaveLength(3);
    expect(new Set(reused).size).toBe(3); // a new session at each request, not the first one kept
    expect(reused.every((key) => / eu-west-1 eks$/.test(key ?? ''))).toBe(true);
    expect(reused).toEqual(await sessionsSeen(false));
  });
});
