/** SSM public parameters: the EKS-optimized AMI ids per Kubernetes version and AMI family. */
export interface SsmPort {
  /** Returns undefined when the parameter does not exist (ParameterNotFound). */
  getParameter(name: string): Promise<string | undefined>;
}
export type SsmPortFactory = (cluster: { region: string; roleArn?: string }) => SsmPort;
