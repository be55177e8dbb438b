import type {
  Addon,
  AddonInfo,
  Cluster,
  ClusterVersionInformation,
  FargateProfile,
  Insight,
  InsightSummary,
  Nodegroup,
  Update,
  CreateNodegroupRequest,
  DescribeInsightsRefreshResponse,
  StartInsightsRefreshResponse,
} from '@aws-sdk/client-eks';

/**
 * The EKS calls this product makes, one method each, typed with the SDK's own shapes. The real
 * implementation (src/aws/eks-sdk-adapter.ts) wraps one EKSClient per region/role; tests point that same
 * client at the simulator over HTTP. Errors are the SDK's exceptions (ResourceInUseException, …) untouched,
 * so callers can branch on `error.name`.
 */
export interface EksPort {
  listClusters(): Promise<string[]>;
  describeCluster(name: string): Promise<Cluster>;
  /** DescribeClusterVersions: the versions EKS offers now, with support dates and default flag. */
  describeClusterVersions(): Promise<ClusterVersionInformation[]>;
  /** `force` overrides upgrade-blocking readiness insights (used only after an approver forced the preflight). */
  updateClusterVersion(name: string, version: string, clientRequestToken?: string, force?: boolean, rollback?: { timeoutMinutes: number }): Promise<Update>;
  /** CancelUpdate: stops an Auto Mode cluster's VersionRollback while EKS still rolls its nodes back (issue 10). */
  cancelUpdate(cluster: string, updateId: string, clientRequestToken?: string): Promise<Update>;
  listUpdates(cluster: string, filter?: { nodegroupName?: string; addonName?: string }): Promise<string[]>;
  describeUpdate(
    cluster: string,
    updateId: string,
    scope?: { nodegroupName?: string; addonName?: string },
  ): Promise<Update>;

  listNodegroups(cluster: string): Promise<string[]>;
  describeNodegroup(cluster: string, nodegroup: string): Promise<Nodegroup>;
  updateNodegroupVersion(
    cluster: string,
    nodegroup: string,
    options: { version?: string; releaseVersion?: string; launchTemplate?: { id?: string; name?: string; version?: string }; force?: boolean; clientRequestToken?: string },
  ): Promise<Update>;
  createNodegroup(request: CreateNodegroupRequest): Promise<Nodegroup>;
  deleteNodegroup(cluster: string, nodegroup: string): Promise<Nodegroup>;

  listAddons(cluster: string): Promise<string[]>;
  describeAddon(cluster: string, addon: string): Promise<Addon>;
  describeAddonVersions(addonName: string, kubernetesVersion: string): Promise<AddonInfo[]>;
  updateAddon(
    cluster: string,
    addon: string,
    options: { addonVersion: string; resolveConflicts?: 'NONE' | 'OVERWRITE' | 'PRESERVE'; clientRequestToken?: string },
  ): Promise<Update>;

  listInsights(cluster: string, filter?: { kubernetesVersions?: string[]; categories?: string[] }): Promise<InsightSummary[]>;
  describeInsight(cluster: string, id: string): Promise<Insight>;
  /** StartInsightsRefresh: asks EKS to rescan now instead of at its daily refresh. */
  startInsightsRefresh(cluster: string): Promise<StartInsightsRefreshResponse>;
  /** DescribeInsightsRefresh: the state of the last refresh (IN_PROGRESS / COMPLETED / FAILED). */
  describeInsightsRefresh(cluster: string): Promise<DescribeInsightsRefreshResponse>;

  listFargateProfiles(cluster: string): Promise<string[]>;
  describeFargateProfile(cluster: string, profile: string): Promise<FargateProfile>;
}

/** One EksPort per configured cluster (region and optional role differ per cluster). */
export type EksPortFactory = (cluster: { region: string; roleArn?: string }) => EksPort;
