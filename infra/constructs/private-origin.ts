import { ApiMapping, DomainName, EndpointType, IpAddressType, SecurityPolicy } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate, CertificateValidation } from 'aws-cdk-lib/aws-certificatemanager';
import { AaaaRecord, ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayv2DomainProperties } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import type { BureauApi } from './api';

export interface PrivateOriginProps {
  /** The HTTP API, built with its execute-api address closed. */
  readonly api: BureauApi;
  /** The API's public domain (edge.domainName); the origin is a name under it. */
  readonly domainName: string;
  /** The Route 53 zone of domainName. */
  readonly hostedZone: { readonly id: string; readonly name: string };
}

/**
 * The name CloudFront reaches the HTTP API by once its execute-api address is closed: a regional
 * API Gateway custom domain, <the API's id>.<the public domain>, in the stage's region.
 *
 * Closing the execute-api address only helps if the name that replaces it stays unknown, or the
 * bypass has merely moved. The API's id is random and, with execute-api closed, appears nowhere
 * public; the certificate is a wildcard for the public domain, so the name is not written to the
 * certificate-transparency logs either, and its records live in the stage's own zone, which Route 53
 * lets nobody outside list. The functions still check CloudFront's secret header (shared/http/origin-guard): a
 * leaked name meets a 403, not the data.
 */
export class PrivateOrigin extends Construct {
  /** The host CloudFront forwards API requests to; it routes by this name, so it is also the Host API Gateway sees. */
  readonly domainName: string;

  constructor(scope: Construct, id: string, props: PrivateOriginProps) {
    super(scope, id);
    const httpApi = props.api.httpApi;
    if (httpApi.disableExecuteApiEndpoint !== true) {
      throw new Error('A private origin is only private with the execute-api address closed (BureauApi closeExecuteApiEndpoint)');
    }
    this.domainName = `${httpApi.apiId}.${props.domainName}`;
    const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', {
      hostedZoneId: props.hostedZone.id,
      zoneName: props.hostedZone.name,
    });
    // API Gateway reads certificates from its own region, unlike CloudFront's in us-east-1.
    const certificate = new Certificate(this, 'Certificate', {
      domainName: `*.${props.domainName}`,
      validation: CertificateValidation.fromDns(zone),
    });
    const domain = new DomainName(this, 'DomainName', {
      domainName: this.domainName,
      certificate,
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
      // So that the AAAA record answers.
      ipAddressType: IpAddressType.DUAL_STACK,
    });
    new ApiMapping(this, 'Mapping', { api: httpApi, domainName: domain, stage: props.api.stage });
    const target = RecordTarget.fromAlias(new ApiGatewayv2DomainProperties(domain.regionalDomainName, domain.regionalHostedZoneId));
    new ARecord(this, 'AliasV4', { zone, recordName: this.domainName, target });
    new AaaaRecord(this, 'AliasV6', { zone, recordName: this.domainName, target });

    // A stage that gains a domain closes the execute-api address in the same deploy that moves
    // CloudFront onto this name. The API's update cannot wait for the distribution (whose origin
    // names the API), but it can wait for the certificate's validation, the slowest step: requests
    // then fail only for the minute the name takes to appear and while CloudFront deploys.
    httpApi.node.defaultChild?.node.addDependency(certificate);
  }
}
