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

export interface Ec2Port {
  describeSubnets(subnetIds: string[]): Promise<SubnetInfo[]>;
  /**
   * The newest version of a launch template, for NG005 (a newer version than the node group uses). Optional: ports
   * built for other uses (the engine's fallback, unit fakes) leave it out and the check stays silent.
   */
  latestLaunchTemplateVersion?(template: { id?: string; name?: string }): Promise<LaunchTemplateLatest>;
}
export type Ec2PortFactory = (cluster: { region: string; roleArn?: string }) => Ec2Port;
