import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseClustersYaml } from '../../src/config/clusters-config.js';
import { parseEnv } from '../../src/config/env-config.js';

/**
 * deploy/kubernetes as `kubectl kustomize` renders it (the real kustomize built into kubectl), and its two
 * overlays: the pieces must fit — Services and PDBs select the Deployments' pods, probes and Services use a port the
 * container declares, every env var the bot reads is set, ConfigMap and Secret references resolve to what is
 * rendered (or documented), and the pods run as non-root with a read-only root filesystem, as the image does.
 */
const run = promisify(execFile);
type Obj = { kind: string; metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: any; data?: Record<string, string> };

async function render(dir: string): Promise<Obj[]> {
  const { stdout } = await run('kubectl', ['kustomize', dir], { timeout: 30_000 });
  return parseAllDocuments(stdout).map((d) => d.toJS() as Obj).filter(Boolean);
}

const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) => Object.entries(selector).every(([k, v]) => labels[k] === v);

describe('deploy/kubernetes (kubectl kustomize)', () => {
  it('every overlay renders, and the base names no region and no account (your overlay does)', async () => {
    for (const overlay of readdirSync('deploy/overlays')) await render(`deploy/overlays/${overlay}`);
    const base = await run('kubectl', ['kustomize', 'deploy/kubernetes'], { timeout: 30_000 });
    expect(base.stdout).not.toMatch(/\b\d{12}\b/);
    expect(base.stdout).not.toMatch(/\b(?:us|eu|ap|sa|ca|me|af|il|mx)-[a-z]+-\d\b/);
    const web = parseAllDocuments(base.stdout).map((d) => d.toJS() as Obj).find((o) => o.kind === 'Deployment' && o.metadata.name.endsWith('-web'))!;
    const region = web.spec.template.spec.containers[0].env.find((e: any) => e.name === 'AWS_REGION');
    expect(region.valueFrom.configMapKeyRef).toMatchObject({ name: expect.stringMatching(/^eks-upgrade-bot-aws-/), key: 'region' });
  });

  it('the example overlay renders web and worker Deployments that fit their Services, PDBs, NetworkPolicies, ConfigMaps and ServiceAccount', async () => {
    const objects = await render('deploy/overlays/example');
    const of = (kind: string) => objects.filter((o) => o.kind === kind);
    const deployments = of('Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(['eks-upgrade-bot-web', 'eks-upgrade-bot-worker']);
    const serviceAccount = of('ServiceAccount')[0];
    expect(serviceAccount.metadata.annotations?.['eks.amazonaws.com/role-arn']).toMatch(/^arn:aws:iam::\d{12}:role\//);

    for (const deployment of deployments) {
      const role = deployment.metadata.name.replace('eks-upgrade-bot-', '');
      const pod = deployment.spec.template;
      const [container] = pod.spec.containers;
      expect(deployment.spec.replicas).toBe(2);
      expect(matches(deployment.spec.selector.matchLabels, pod.metadata.labels)).toBe(true);
      expect(pod.spec.serviceAccountName).toBe(serviceAccount.metadata.name);

      // Environment: what the bot's own parser requires, ROLE per Deployment, values from what is rendered.
      const env = Object.fromEntries(container.env.map((e: any) => [e.name, e]));
      expect(env.ROLE.value).toBe(role);
      const configMap = of('ConfigMap').find((c) => c.metadata.name === env.REDIS_URL.valueFrom.configMapKeyRef.name);
      expect(configMap?.data?.url).toMatch(/^rediss?:\/\//);
      for (const name of ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET']) expect(env[name].valueFrom.secretKeyRef.name).toBe('eks-upgrade-bot-slack');
      const parsed = parseEnv({
        ...Object.fromEntries(container.env.filter((e: any) => 'value' in e).map((e: any) => [e.name, e.value])),
        REDIS_URL: configMap!.data!.url,
        SLACK_BOT_TOKEN: 'xoxb-from-the-secret',
        SLACK_SIGNING_SECRET: 'from-the-secret',
      });
      expect(parsed.ROLE).toBe(role);
      const aws = of('ConfigMap').find((c) => c.metadata.name === env.AWS_REGION.valueFrom.configMapKeyRef.name);
      expect(aws?.data?.region).toMatch(/^[a-z]{2}(-[a-z]+)+-\d$/);

      // The clusters file: mounted from the rendered ConfigMap where CLUSTERS_FILE says, and valid for the bot.
      const mount = container.volumeMounts.find((m: any) => env.CLUSTERS_FILE.value.startsWith(`${m.mountPath}/`));
      const volume = pod.spec.volumes.find((v: any) => v.name === mount.name);
      const clusters = of('ConfigMap').find((c) => c.metadata.name === volume.configMap.name);
      const file = env.CLUSTERS_FILE.value.slice(mount.mountPath.length + 1);
      expect(parseClustersYaml(clusters!.data![file]).clusters.length).toBeGreaterThan(0);

      // Probes on /healthz through the port the container declares, where the bot listens (PORT).
      const port = container.ports.find((p: any) => p.name === 'http');
      expect(port.containerPort).toBe(Number(env.PORT.value));
      for (const probe of [container.readinessProbe, container.livenessProbe]) expect(probe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container.resources.requests.cpu).toBeDefined();
      expect(container.resources.limits.memory).toBeDefined();

      // Non-root, read-only root filesystem, nothing to escalate; /tmp writable for tsx's cache.
      expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      expect(container.volumeMounts.map((m: any) => m.mountPath)).toContain('/tmp');

      // Every Service, PDB and NetworkPolicy of this role selects these pods, through a declared port.
      const service = of('Service').find((s) => s.metadata.name === deployment.metadata.name)!;
      expect(matches(service.spec.selector, pod.metadata.labels)).toBe(true);
      expect(service.spec.ports[0].targetPort).toBe('http');
      const pdb = of('PodDisruptionBudget').find((p) => p.metadata.name === deployment.metadata.name)!;
      expect(matches(pdb.spec.selector.matchLabels, pod.metadata.labels)).toBe(true);
      expect(pdb.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
      const policy = of('NetworkPolicy').find((p) => p.metadata.name === deployment.metadata.name)!;
      expect(matches(policy.spec.podSelector.matchLabels, pod.metadata.labels)).toBe(true);
      expect(policy.spec.ingress.flatMap((i: any) => i.ports.map((p: any) => p.port))).toEqual(['http']);
    }
  });

  it('the example overlay points REDIS_URL at its own AOF Redis, which the bot pods may reach', async () => {
    const objects = await render('deploy/overlays/example');
    const redis = objects.find((o) => o.kind === 'StatefulSet')!;
    expect(redis.spec.template.spec.containers[0].args).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']));
    const service = objects.find((o) => o.kind === 'Service' && matches(o.spec.selector, redis.spec.template.metadata.labels))!;
    const web = objects.find((o) => o.kind === 'Deployment' && o.metadata.name.endsWith('-web'))!;
    const ref = web.spec.template.spec.containers[0].env.find((e: any) => e.name === 'REDIS_URL').valueFrom.configMapKeyRef;
    const url = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === ref.name)!.data![ref.key];
    expect(url).toBe(`redis://${service.metadata.name}:${service.spec.ports[0].port}`);
    expect(redis.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
  });

  it('the with-monitoring overlay scrapes both Services\' http port at /metrics and ships the dashboard', async () => {
    const objects = await render('deploy/overlays/with-monitoring');
    const monitor = objects.find((o) => o.kind === 'ServiceMonitor')!;
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: 'http', path: '/metrics' })]);
    const components = monitor.spec.selector.matchExpressions.find((e: any) => e.key === 'app.kubernetes.io/component').values;
    const scraped = objects.filter((o) => o.kind === 'Service' && components.includes(o.metadata.labels?.['app.kubernetes.io/component']));
    expect(scraped.map((s) => s.metadata.name).sort()).toEqual(['eks-upgrade-bot-web', 'eks-upgrade-bot-worker']);
    for (const service of scraped) expect(service.spec.ports.map((p: any) => p.name)).toContain('http');
    const dashboard = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.labels?.grafana_dashboard === '1')!;
    expect(JSON.parse(dashboard.data!['eks-upgrade-bot.json']).title).toBe('eks-upgrade-bot');
  });

  it('the http-ingress overlay sends https://HOST/slack/events through an ALB with TLS to the web pods\' http port', async () => {
    const objects = await render('deploy/overlays/http-ingress');
    const ingress = objects.find((o) => o.kind === 'Ingress')!;
    const annotations = ingress.metadata.annotations!;
    expect(ingress.spec.ingressClassName).toBe('alb');
    expect(annotations['alb.ingress.kubernetes.io/certificate-arn']).toMatch(/^arn:aws:acm:/);
    expect(JSON.parse(annotations['alb.ingress.kubernetes.io/listen-ports'])).toEqual([{ HTTPS: 443 }]);
    expect(annotations['alb.ingress.kubernetes.io/target-type']).toBe('ip');
    const [rule] = ingress.spec.rules;
    expect(ingress.spec.tls[0].hosts).toContain(rule.host);
    const [path] = rule.http.paths;
    expect(path.path).toBe('/slack/events');
    const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === path.backend.service.name)!;
    expect(service.spec.ports.map((p: any) => p.name)).toContain(path.backend.service.port.name);
    expect(service.metadata.labels?.['app.kubernetes.io/component']).toBe('web');
  });

  it('the IAM trust policies name the rendered service account (IRSA) and EKS Pod Identity\'s principal', async () => {
    const objects = await render('deploy/overlays/example');
    const account = objects.find((o) => o.kind === 'ServiceAccount')!;
    const namespace = objects.find((o) => o.kind === 'Namespace')!.metadata.name;
    const irsa = JSON.parse(readFileSync('deploy/iam/trust-policy-irsa.json', 'utf8'));
    const [web] = irsa.Statement;
    expect(web.Action).toBe('sts:AssumeRoleWithWebIdentity');
    expect(web.Principal.Federated).toMatch(/^arn:aws:iam::ACCOUNT_ID:oidc-provider\/OIDC_PROVIDER$/);
    expect(web.Condition.StringEquals['OIDC_PROVIDER:sub']).toBe(`system:serviceaccount:${namespace}:${account.metadata.name}`);
    expect(web.Condition.StringEquals['OIDC_PROVIDER:aud']).toBe('sts.amazonaws.com');
    const pods = JSON.parse(readFileSync('deploy/iam/trust-policy-pod-identity.json', 'utf8')).Statement[0];
    expect(pods.Principal).toEqual({ Service: 'pods.eks.amazonaws.com' });
    expect([...pods.Action].sort()).toEqual(['sts:AssumeRole', 'sts:TagSession']);
  });

  it('the image runs as the non-root node user, which is the UID the manifests ask for', () => {
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    const user = [...dockerfile.matchAll(/^USER\s+(\S+)/gm)].at(-1)?.[1];
    // The official node images' `node` user is UID 1000.
    expect(['node', '1000', '1000:1000']).toContain(user);
  });
});
