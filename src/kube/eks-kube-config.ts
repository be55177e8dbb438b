/**
 * A client-node KubeConfig for one EKS cluster, built in memory from DescribeCluster (endpoint and CA) — no
 * kubeconfig file and no `aws eks get-token` exec plugin. Each request (typed calls, our plain-JSON requests and
 * watches alike) asks the authenticator for the current token, so a token refreshed at 14 minutes is picked up
 * without rebuilding anything. user.token stays unset: client-node would send it instead of ours.
 */

import type { OutgoingHttpHeaders } from 'node:http';
import { KubeConfig, type User } from '@kubernetes/client-node';

const USER_NAME = 'eks-upgrade-bot';

export interface EksKubeConfigInput {
  clusterName: string;
  /** cluster.endpoint, e.g. https://ABC.gr7.us-west-2.eks.amazonaws.com (or the simulator's http://…/k8s/demo). */
  server: string;
  /** cluster.certificateAuthority.data: base64 of the PEM bundle, as EKS returns it. */
  caData?: string;
  token: () => Promise<string>;
}

export function createEksKubeConfig(input: EksKubeConfigInput): KubeConfig {
  const kc = new KubeConfig();
  kc.addAuthenticator({
    isAuthProvider: (user: User) => user?.name === USER_NAME,
    async applyAuthentication(_user, opts) {
      const headers = (opts.headers ??= {}) as OutgoingHttpHeaders;
      headers.Authorization = `Bearer ${await input.token()}`;
    },
  });
  // client-node refuses http:// unless TLS verification is off; plain HTTP is only ever the local simulator.
  const plainHttp = input.server.startsWith('http://');
  kc.loadFromOptions({
    clusters: [
      {
        name: input.clusterName,
        server: input.server.replace(/\/+$/, ''),
        skipTLSVerify: plainHttp,
        ...(input.caData && !plainHttp ? { caData: input.caData } : {}),
      },
    ],
    users: [{ name: USER_NAME }],
    contexts: [{ name: input.clusterName, cluster: input.clusterName, user: USER_NAME }],
    currentContext: input.clusterName,
  });
  return kc;
}
