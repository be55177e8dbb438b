import {
  CancelUpdateCommand,
  CreateNodegroupCommand,
  DeleteNodegroupCommand,
  DescribeAddonCommand,
  DescribeClusterCommand,
  DescribeFargateProfileCommand,
  DescribeInsightCommand,
  DescribeInsightsRefreshCommand,
  DescribeNodegroupCommand,
  DescribeUpdateCommand,
  EKSClient,
  paginateDescribeAddonVersions,
  paginateDescribeClusterVersions,
  paginateListAddons,
  paginateListClusters,
  paginateListFargateProfiles,
  paginateListInsights,
  paginateListNodegroups,
  paginateListUpdates,
  StartInsightsRefreshCommand,
  UpdateAddonCommand,
  UpdateClusterVersionCommand,
  UpdateNodegroupVersionCommand,
  type AddonInfo,
  type Category,
} from '@aws-sdk/client-eks';
import type { EksPort, EksPortFactory } from '../ports/aws/eks-port.js';
import { clientCache, instrumented, sdkClientConfig, type AwsAdapterOptions } from './aws-client-config.js';
import { collectPages } from './collect-pages.js';
import { systemClock } from '../ports/clock.js';
import { reusedAnswers } from '../domain/reused-answers.js';

export interface EksAdapterOptions extends AwsAdapterOptions {
  /** How long one add-on catalogue read is shared (default ADDON_CATALOGUE_REUSE_MS; 0: read every time). */
  addonCatalogueReuseMs?: number;
}

/**
 * What EKS offers of an add-on for a Kubernetes minor (DescribeAddonVersions) is the same for every cluster a client
 * reads (one client per region and role), and AWS publishes new add-on versions days apart: one read is shared for
 * 10 minutes by the wall clock, so a rollout's plans, preflights and add-on steps over hundreds of clusters at one
 * version read it a few times, not 21 times a cluster (bench P8). Every page is still followed (AWS promises neither
 * order nor page size); a failed read is not kept, so the next caller asks again with the same credentials.
 */
export const ADDON_CATALOGUE_REUSE_MS = 10 * 60_000;

/**
 * EksPort over @aws-sdk/client-eks: one EKSClient per region/role, list calls followed to the last page. SDK
 * exceptions pass through untouched (callers branch on `error.name`, e.g. ResourceInUseException); turn them into
 * a sentence for people with describeAwsError. A response missing the object it exists to return is a broken
 * endpoint, reported as such rather than handed on as undefined.
 */
export function createEksPortFactory(opts: EksAdapterOptions = {}): EksPortFactory {
  return clientCache((target) => eksPort(instrumented(new EKSClient(sdkClientConfig('eks', target, opts)), 'eks', opts.metrics), opts.addonCatalogueReuseMs ?? ADDON_CATALOGUE_REUSE_MS));
}

/**
 * Every EKS list asks for the largest page the API allows (maxResults 1–100, e.g. "This value can be between 1 and
 * 100", EKS API reference ListInsights/ListUpdates/ListAddons). AWS answers up to 100 when it is unset, but promises
 * no page size either way, so every page is still followed to the last nextToken; asking for the maximum only keeps a
 * service that answers small pages by default from costing one more round trip per list (bench P2k: ListInsights
 * twice per cluster).
 */
export const EKS_MAX_PAGE = 100;

function eksPort(client: EKSClient, catalogueReuseMs: number): EksPort {
  const pages = { client, pageSize: EKS_MAX_PAGE };
  const catalogues = reusedAnswers<AddonInfo[]>({ reuseMs: catalogueReuseMs, now: systemClock.now });
  // Concurrent DescribeClusters of one cluster (a status read and its Kubernetes connection start together) share
  // one call: they would get the same answer. Nothing is kept once it has answered.
  const describing = new Map<string, ReturnType<EksPort['describeCluster']>>();
  return {
    listClusters: () => collectPages(paginateListClusters(pages, {}), (page) => page.clusters),

    describeCluster(name) {
      let pending = describing.get(name);
      if (!pending) {
        pending = client.send(new DescribeClusterCommand({ name })).then(({ cluster }) => present(cluster, `DescribeCluster for ${name}`));
        describing.set(name, pending);
        const forget = () => describing.delete(name);
        pending.then(forget, forget);
      }
      return pending;
    },

    describeClusterVersions: () => collectPages(paginateDescribeClusterVersions(pages, {}), (page) => page.clusterVersions),

    async updateClusterVersion(name, version, clientRequestToken, force, rollback) {
      // `force` overrides EKS's upgrade-blocking readiness checks (ERROR insights); only sent when an approver forced.
      // `rollback` makes it a VersionRollback one minor back (rollbackConfig; issue 10).
      const { update } = await client.send(
        new UpdateClusterVersionCommand({
          name, version, clientRequestToken, ...(force ? { force: true } : {}),
          ...(rollback ? { rollbackConfig: { timeoutMinutes: rollback.timeoutMinutes } } : {}),
        }),
      );
      return present(update, `UpdateClusterVersion for ${name}`);
    },

    async cancelUpdate(cluster, updateId, clientRequestToken) {
      const { update } = await client.send(new CancelUpdateCommand({ name: cluster, updateId, clientRequestToken }));
      return present(update, `CancelUpdate ${updateId} for ${cluster}`);
    },

    listUpdates: (cluster, filter) =>
      collectPages(paginateListUpdates(pages, { name: cluster, ...filter }), (page) => page.updateIds),

    async describeUpdate(cluster, updateId, scope) {
      const { update } = await client.send(new DescribeUpdateCommand({ name: cluster, updateId, ...scope }));
      return present(update, `DescribeUpdate ${updateId} for ${cluster}`);
    },

    listNodegroups: (cluster) => collectPages(paginateListNodegroups(pages, { clusterName: cluster }), (page) => page.nodegroups),

    async describeNodegroup(cluster, nodegroup) {
      const result = await client.send(new DescribeNodegroupCommand({ clusterName: cluster, nodegroupName: nodegroup }));
      return present(result.nodegroup, `DescribeNodegroup for ${cluster}/${nodegroup}`);
    },

    async updateNodegroupVersion(cluster, nodegroup, options) {
      const { update } = await client.send(
        new UpdateNodegroupVersionCommand({ clusterName: cluster, nodegroupName: nodegroup, ...options }),
      );
      return present(update, `UpdateNodegroupVersion for ${cluster}/${nodegroup}`);
    },

    async createNodegroup(request) {
      const { nodegroup } = await client.send(new CreateNodegroupCommand(request));
      return present(nodegroup, `CreateNodegroup for ${request.clusterName}/${request.nodegroupName}`);
    },

    async deleteNodegroup(cluster, nodegroup) {
      const result = await client.send(new DeleteNodegroupCommand({ clusterName: cluster, nodegroupName: nodegroup }));
      return present(result.nodegroup, `DeleteNodegroup for ${cluster}/${nodegroup}`);
    },

    listAddons: (cluster) => collectPages(paginateListAddons(pages, { clusterName: cluster }), (page) => page.addons),

    async describeAddon(cluster, addon) {
      const result = await client.send(new DescribeAddonCommand({ clusterName: cluster, addonName: addon }));
      return present(result.addon, `DescribeAddon for ${cluster}/${addon}`);
    },

    describeAddonVersions: (addonName, kubernetesVersion) =>
      catalogues(`${addonName}|${kubernetesVersion}`, () =>
        collectPages(paginateDescribeAddonVersions(pages, { addonName, kubernetesVersion }), (page) => page.addons),
      ),

    async updateAddon(cluster, addon, options) {
      const { update } = await client.send(new UpdateAddonCommand({ clusterName: cluster, addonName: addon, ...options }));
      return present(update, `UpdateAddon for ${cluster}/${addon}`);
    },

    listInsights: (cluster, filter) =>
      collectPages(
        paginateListInsights(pages, {
          clusterName: cluster,
          filter: filter && {
            kubernetesVersions: filter.kubernetesVersions,
            categories: filter.categories as Category[] | undefined,
          },
        }),
        (page) => page.insights,
      ),

    async describeInsight(cluster, id) {
      const { insight } = await client.send(new DescribeInsightCommand({ clusterName: cluster, id }));
      return present(insight, `DescribeInsight ${id} for ${cluster}`);
    },

    async startInsightsRefresh(cluster) {
      const { $metadata: _, ...answer } = await client.send(new StartInsightsRefreshCommand({ clusterName: cluster }));
      return answer;
    },

    async describeInsightsRefresh(cluster) {
      const { $metadata: _, ...answer } = await client.send(new DescribeInsightsRefreshCommand({ clusterName: cluster }));
      return answer;
    },

    listFargateProfiles: (cluster) =>
      collectPages(paginateListFargateProfiles(pages, { clusterName: cluster }), (page) => page.fargateProfileNames),

    async describeFargateProfile(cluster, profile) {
      const result = await client.send(new DescribeFargateProfileCommand({ clusterName: cluster, fargateProfileName: profile }));
      return present(result.fargateProfile, `DescribeFargateProfile for ${cluster}/${profile}`);
    },
  };
}

function present<T>(value: T | undefined, operation: string): T {
  if (value === undefined || value === null) {
    throw new Error(`${operation} failed: the EKS endpoint answered without the expected object; check AWS_ENDPOINT_URL`);
  }
  return value;
}
