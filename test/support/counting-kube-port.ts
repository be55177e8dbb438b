import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import type { EksPortFactory } from '../../src/ports/aws/eks-port.js';
import type { KubePort, KubePortFactory } from '../../src/ports/kube-port.js';

/** The real adapters pointed at a simulator, as the engine tests use them. */
export function simAdapters(sim: { url: string }): { eks: EksPortFactory; kube: KubePortFactory } {
  const credentials = { accessKeyId: 'AKIDSIMULATOR', secretAccessKey: 'simulator' };
  const eks = createEksPortFactory({ endpoint: sim.url, credentials, maxAttempts: 2 });
  return { eks, kube: createKubePortFactory({ eks, tokenSourceFor: () => ({ token: async () => 'sim' }) }) };
}

/**
 * Wraps a KubePortFactory to record every list and watch ("nodes eks.amazonaws.com/nodegroup=demo-ng"), so a test
 * can tell watches from listing in a loop.
 */
export function countingKube(real: KubePortFactory): { kube: KubePortFactory; lists: string[]; watches: string[] } {
  const lists: string[] = [];
  const watches: string[] = [];
  const kube: KubePortFactory = async (target) => {
    const port = await real(target);
    const counted: KubePort = {
      ...port,
      list: (resource, options) => {
        lists.push(`${resource} ${options?.labelSelector ?? ''}`.trim());
        return port.list(resource, options);
      },
      watch: (resource, options, handlers) => {
        watches.push(`${resource} ${options?.labelSelector ?? ''}`.trim());
        return port.watch(resource, options, handlers);
      },
    };
    return counted;
  };
  return { kube, lists, watches };
}
