/** The AWS services the simulator answers, as the SigV4 credential scope names them. */
export type AwsService = 'eks' | 'ssm' | 'ec2' | 'sts' | 'autoscaling' | 'iam' | 'monitoring';
