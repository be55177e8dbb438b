/** EC2 DescribeSubnets, for the free-IP preflight checks. */
export interface SubnetInfo {
  subnetId: string;
  availabilityZone: string;
  availableIpAddressCount: number;
  cidrBlock?: string;
}
/** A launch template's newest version (DescribeLaunchTemplateVersions with $Latest). */
export interface LaunchTemplateLatest {
  id: string;
  name?: string;
  latestVersion: number;
}

/** One version of a launch template, as far as an AMI rollout cares. */
export interface LaunchTemplateVersionInfo {
  version: number;
  imageId?: string;
  isDefault: boolean;
  createdAt?: number;
  description?: string;
}

export interface Ec2Port {
  describeSubnets(subnetIds: string[]): Promise<SubnetInfo[]>;
  /**
   * The newest version of a launch template, for NG005 (a newer version than the node group uses). Optional: ports
   * built for other uses (the engine's fallback, unit fakes) leave it out and the check stays silent.
   */
  latestLaunchTemplateVersion?(template: { id?: string; name?: string }): Promise<LaunchTemplateLatest>;
  /** Every version of the template, oldest first. */
  describeLaunchTemplateVersions(launchTemplateId: string): Promise<LaunchTemplateVersionInfo[]>;
  /** A new version copied from `sourceVersion` with only the image id changed; returns its number. */
  createLaunchTemplateVersion(launchTemplateId: string, input: { sourceVersion: string; imageId: string; description?: string }): Promise<number>;
  /** ModifyLaunchTemplate --default-version. */
  setDefaultLaunchTemplateVersion(launchTemplateId: string, version: number): Promise<void>;
}
export type Ec2PortFactory = (cluster: { region: string; roleArn?: string }) => Ec2Port;
