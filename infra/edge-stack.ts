import { Stack, type StackProps } from 'aws-cdk-lib';
import { Certificate, CertificateValidation, type ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { HostedZone } from 'aws-cdk-lib/aws-route53';
import type { Construct } from 'constructs';
import { EdgeFirewall } from './constructs/edge-firewall';
import type { EdgeSettings } from './stage-settings';

/** CloudFront reads web ACLs and certificates from this region only. */
export const EDGE_REGION = 'us-east-1';

export interface BureauEdgeStackProps extends StackProps {
  readonly edge: EdgeSettings;
  readonly logRetention: RetentionDays;
}

/**
 * What CloudFront needs from us-east-1 whatever region the service runs in: the AWS WAF web ACL and,
 * when the API has its own domain in Route 53, its certificate. The service's stack reads both
 * through CDK cross-region references, so `cdk deploy --all` deploys this stack first.
 */
export class BureauEdgeStack extends Stack {
  readonly firewall: EdgeFirewall;
  readonly certificate?: ICertificate;

  constructor(scope: Construct, id: string, props: BureauEdgeStackProps) {
    super(scope, id, {
      description: 'Bureau: the AWS WAF web ACL and TLS certificate CloudFront uses',
      crossRegionReferences: true,
      ...props,
      env: { ...props.env, region: EDGE_REGION },
    });
    this.firewall = new EdgeFirewall(this, 'Firewall', {
      requestsPerAddressPer5Minutes: props.edge.requestsPerAddressPer5Minutes,
      signInsPerAddressPer5Minutes: props.edge.signInsPerAddressPer5Minutes,
      logRetention: props.logRetention,
    });
    const { domainName, hostedZone, certificateArn } = props.edge;
    if (domainName && hostedZone && !certificateArn) {
      this.certificate = new Certificate(this, 'Certificate', {
        domainName,
        validation: CertificateValidation.fromDns(
          HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId: hostedZone.id, zoneName: hostedZone.name }),
        ),
      });
    }
  }
}
