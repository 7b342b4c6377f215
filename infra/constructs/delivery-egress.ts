import { Fn } from 'aws-cdk-lib';
import { CfnEIP, FlowLogDestination, GatewayVpcEndpointAwsService, NatProvider, SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface DeliveryEgressProps {
  /** NAT gateways, one per availability zone, each with its own Elastic IP. */
  readonly addresses: number;
  readonly flowLogRetention: RetentionDays;
}

/**
 * Fixed public addresses for webhook deliveries, which subscribers often allowlist: a VPC whose
 * private subnets reach the internet only through NAT gateways with Elastic IPs the stack owns, so
 * the addresses survive any change to the functions. DynamoDB is reached through a gateway endpoint
 * (free), keeping table traffic off the NAT gateways' per-gigabyte charge.
 */
export class DeliveryEgress extends Construct {
  readonly vpc: Vpc;
  readonly addresses: readonly CfnEIP[];

  constructor(scope: Construct, id: string, props: DeliveryEgressProps) {
    super(scope, id);
    this.addresses = Array.from({ length: props.addresses }, (_, index) => new CfnEIP(this, `Address${index + 1}`, { domain: 'vpc' }));
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: props.addresses,
      natGateways: props.addresses,
      natGatewayProvider: NatProvider.gateway({ eipAllocationIds: this.addresses.map((address) => address.attrAllocationId) }),
      subnetConfiguration: [
        { name: 'Public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'Deliveries', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
      ],
      gatewayEndpoints: { DynamoDb: { service: GatewayVpcEndpointAwsService.DYNAMODB } },
    });
    this.vpc.addFlowLog('FlowLog', {
      destination: FlowLogDestination.toCloudWatchLogs(new LogGroup(this, 'FlowLogs', { retention: props.flowLogRetention })),
    });
  }

  /** The public addresses, comma-separated, as subscribers allowlist them. */
  get publicAddresses(): string {
    return Fn.join(
      ',',
      this.addresses.map((address) => address.attrPublicIp),
    );
  }
}
