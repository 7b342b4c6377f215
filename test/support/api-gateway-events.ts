import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** An API Gateway HTTP API (payload 2.0) event as it reaches a handler deployed behind a route. */
export function apiGatewayEvent(request: {
  method?: string;
  path: string;
  rawQueryString?: string;
  headers?: Record<string, string>;
  body?: string;
  sourceIp?: string;
}): APIGatewayProxyEventV2 {
  const method = request.method ?? 'GET';
  return {
    version: '2.0',
    routeKey: `${method} ${request.path}`,
    rawPath: request.path,
    rawQueryString: request.rawQueryString ?? '',
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { body: request.body }),
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example',
      domainPrefix: 'api',
      http: { method, path: request.path, protocol: 'HTTP/1.1', sourceIp: request.sourceIp ?? '192.0.2.10', userAgent: 'test' },
      requestId: 'request-1',
      routeKey: `${method} ${request.path}`,
      stage: '$default',
      time: '01/Mar/2025:12:00:00 +0000',
      timeEpoch: 1_740_830_400_000,
    },
  };
}
