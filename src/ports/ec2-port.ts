/** EC2 DescribeSubnets, for the free-IP preflight checks. */
export interface SubnetInfo {
  subnetId: string;
  availabilityZone: string;
  availableIpAddressCount: number;
  cidrBlock?: string;
}
export interface Ec2Port {
  describeSubnets(subnetIds: string[]): Promise<SubnetInfo[]>;
}
export type Ec2PortFactory = (cluster: { region: string; roleArn?: string }) => Ec2Port;
