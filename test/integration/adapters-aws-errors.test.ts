import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { describeAwsError } from '../../src/aws/describe-aws-error.js';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createSsmPortFactory } from '../../src/aws/ssm-sdk-adapter.js';

/**
 * The failure paths of the AWS adapters through the real SDK (serialization, retries, error parsing) against a
 * scripted HTTP endpoint: what the SDK hands callers, and the sentence describeAwsError makes of it. The happy
 * paths run against the simulator in adapters-eks.test.ts.
 */
type Route = (req: IncomingMessage, body: string, res: ServerResponse) => void;

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function endpoint(route: Route): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url}`);
      route(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

function awsError(res: ServerResponse, status: number, type: string, message: string) {
  res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
  res.end(JSON.stringify({ message }));
}

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const demo = { region: 'us-west-2' };

describe('AWS adapters: errors callers branch on, and their sentences for people', () => {
  it('passes ResourceNotFoundException through and names the cluster and the fix', async () => {
    const aws = await endpoint((_req, _body, res) => awsError(res, 404, 'ResourceNotFoundException', 'No cluster found for name: demo.'));
    const eks = createEksPortFactory({ endpoint: aws.url, credentials })(demo);
    const error = await eks.describeCluster('demo').catch((e) => e);
    expect(error.name).toBe('ResourceNotFoundException');
    expect(describeAwsError('DescribeCluster for demo', error)).toBe(
      'DescribeCluster for demo failed: ResourceNotFoundException: No cluster found for name: demo. Check the cluster name and region in clusters.yaml.',
    );
  });

  it('tells which IAM action to grant on AccessDenied', async () => {
    const aws = await endpoint((_req, _body, res) =>
      awsError(res, 403, 'AccessDeniedException', 'User: arn:aws:sts::111122223333:assumed-role/bot/s is not authorized to perform: eks:UpdateClusterVersion on resource: arn:aws:eks:us-west-2:111122223333:cluster/demo'),
    );
    const eks = createEksPortFactory({ endpoint: aws.url, credentials })(demo);
    const error = await eks.updateClusterVersion('demo', '1.31').catch((e) => e);
    expect(error.name).toBe('AccessDeniedException');
    expect(aws.requests).toHaveLength(1); // a refusal is not retried
    const text = describeAwsError('UpdateClusterVersion for demo', error);
    expect(text).toMatch(/^UpdateClusterVersion for demo failed: AccessDeniedException: User: .* is not authorized to perform: eks:UpdateClusterVersion/);
    expect(text).toMatch(/Grant the bot's IAM role the eks:UpdateClusterVersion permission/);
  });

  it('retries throttling, then says so', async () => {
    const aws = await endpoint((_req, _body, res) => awsError(res, 429, 'ThrottlingException', 'Rate exceeded'));
    const eks = createEksPortFactory({ endpoint: aws.url, credentials, maxAttempts: 2 })(demo);
    const error = await eks.listClusters().catch((e) => e);
    expect(error.name).toBe('ThrottlingException');
    expect(aws.requests).toHaveLength(2);
    expect(describeAwsError('ListClusters', error)).toBe(
      'ListClusters failed: ThrottlingException: Rate exceeded. AWS is throttling these calls (gave up after 2 attempts); try again in a minute.',
    );
  });

  it('points at AWS_ENDPOINT_URL and the network when the endpoint does not answer', async () => {
    const aws = await endpoint(() => {});
    await stop!();
    stop = undefined;
    const eks = createEksPortFactory({ endpoint: aws.url, credentials, maxAttempts: 1 })(demo);
    const error = await eks.describeCluster('demo').catch((e) => e);
    const text = describeAwsError('DescribeCluster for demo', error);
    expect(text).toMatch(/^DescribeCluster for demo failed: ECONNREFUSED: /);
    expect(text).toMatch(/could not be reached.*check AWS_ENDPOINT_URL/);
  });

  it('says how to provide credentials when there are none', async () => {
    const aws = await endpoint((_req, _body, res) => awsError(res, 500, 'ServerException', 'should not be called'));
    const missing = async () => {
      throw Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
    };
    const eks = createEksPortFactory({ endpoint: aws.url, credentials: missing, maxAttempts: 1 })(demo);
    const error = await eks.describeCluster('demo').catch((e) => e);
    expect(aws.requests).toHaveLength(0);
    expect(describeAwsError('DescribeCluster for demo', error)).toMatch(
      /^DescribeCluster for demo failed: CredentialsProviderError: Could not load credentials from any providers\. No AWS credentials were found: set AWS_ACCESS_KEY_ID/,
    );
  });

  it('follows nextToken to the last page of a list', async () => {
    const aws = await endpoint((req, _body, res) => {
      const token = new URL(req.url!, 'http://x').searchParams.get('nextToken');
      res.writeHead(200, { 'content-type': 'application/json' });
      if (!token) res.end(JSON.stringify({ nodegroups: ['ng-1', 'ng-2'], nextToken: 'p2' }));
      else if (token === 'p2') res.end(JSON.stringify({ nodegroups: ['ng-3'], nextToken: 'p3' }));
      else res.end(JSON.stringify({ nodegroups: ['ng-4'] }));
    });
    const eks = createEksPortFactory({ endpoint: aws.url, credentials })(demo);
    expect(await eks.listNodegroups('demo')).toEqual(['ng-1', 'ng-2', 'ng-3', 'ng-4']);
    expect(aws.requests).toHaveLength(3);
  });

  it('reads a missing SSM parameter as "no such AMI" rather than a failure', async () => {
    const aws = await endpoint((req, body, res) => {
      expect(req.headers['x-amz-target']).toBe('AmazonSSM.GetParameter');
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ __type: 'ParameterNotFound', message: `${JSON.parse(body).Name} not found` }));
    });
    const ssm = createSsmPortFactory({ endpoint: aws.url, credentials })(demo);
    expect(await ssm.getParameter('/aws/service/eks/optimized-ami/1.33/amazon-linux-2/recommended/image_id')).toBeUndefined();
  });
});
