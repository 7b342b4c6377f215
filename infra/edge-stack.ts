import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Certificate, CertificateValidation, type ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { HostedZone } from 'aws-cdk-lib/aws-route53';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { EdgeFirewall } from './constructs/edge-firewall';
import { edgeParameterNames } from './constructs/edge-parameters';
import { EDGE_REGION, type EdgeSettings } from './stage-settings';

export interface BureauEdgeStackProps extends StackProps {
  readonly edge: EdgeSettings;
  readonly logRetention: RetentionDays;
  /** The service stack's name: it names the parameters the two stacks share. */
  readonly serviceStackName: string;
}

/**
 * What CloudFront needs from us-east-1 whatever region the service runs in: the AWS WAF web ACL and,
 * when the API has its own domain in Route 53, its certificate. Their ARNs go to SSM parameters
 * (constructs/edge-parameters) that the service's stack reads at deploy time, so `cdk deploy --all`
 * deploys this stack first, and a new certificate is a new parameter value, never a stuck export.
 */
export class BureauEdgeStack extends Stack {
  readonly firewall: EdgeFirewall;
  readonly certificate?: ICertificate;

  constructor(scope: Construct, id: string, props: BureauEdgeStackProps) {
    super(scope, id, {
      description: 'Bureau: the AWS WAF web ACL and TLS certificate CloudFront uses',
      ...props,
      env: { ...props.env, region: EDGE_REGION },
    });
    this.firewall = new EdgeFirewall(this, 'Firewall', {
      requestsPerAddressPer5Minutes: props.edge.requestsPerAddressPer5Minutes,
      signInsPerAddressPer5Minutes: props.edge.signInsPerAddressPer5Minutes,
      logRetention: props.logRetention,
    });
    const names = edgeParameterNames(props.serviceStackName);
    new StringParameter(this, 'WebAclArnParameter', {
      parameterName: names.webAclArn,
      stringValue: this.firewall.webAcl.attrArn,
      description: 'Bureau: the AWS WAF web ACL CloudFront is put behind',
    });
    const { domainName, hostedZone, certificateArn } = props.edge;
    if (domainName && hostedZone && !certificateArn) {
      const certificate = new Certificate(this, 'Certificate', {
        domainName,
        validation: CertificateValidation.fromDns(
          HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId: hostedZone.id, zoneName: hostedZone.name }),
        ),
      });
      // A domain change deploys this stack before the distribution lets go of the old certificate,
      // which ACM then refuses to delete: kept instead, and removed by hand (docs/deploy.md).
      certificate.applyRemovalPolicy(RemovalPolicy.RETAIN);
      this.certificate = certificate;
      new StringParameter(this, 'CertificateArnParameter', {
        parameterName: names.certificateArn,
        stringValue: certificate.certificateArn,
        description: `Bureau: the certificate CloudFront serves ${domainName} with`,
      });
      new CfnOutput(this, 'CertificateArn', {
        value: certificate.certificateArn,
        description: `The certificate for ${domainName}; after a domain change, delete the previous one (docs/deploy.md)`,
      });
    }
  }
}
