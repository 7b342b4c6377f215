import type { CorsSettings } from '../shared/http/cors';
import type { GatewayResponse } from './api-gateway-event';

/**
 * The HTTP API's CORS, as API Gateway applies a `CorsConfiguration`: to the whole API, whatever the
 * route. A request is a CORS request when it carries an Origin header; a preflight is an OPTIONS
 * request that also names Access-Control-Request-Method, and the gateway answers it itself (204),
 * with no route and no function involved. The CORS headers a function sends are dropped, so the
 * configuration alone decides.
 */
export interface GatewayCors {
  /** The gateway's own answer to a preflight, or undefined when the request is not one. */
  preflight(method: string, headers: RequestHeaders): GatewayResponse | undefined;
  /** The answer as the gateway sends it: the function's CORS headers dropped, the configuration's added. */
  apply(response: GatewayResponse, headers: RequestHeaders): GatewayResponse;
}

type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export function gatewayCors(settings: CorsSettings): GatewayCors {
  const allowedOrigin = (headers: RequestHeaders): string | undefined => {
    const origin = single(headers.origin);
    if (origin === undefined) return undefined;
    if (settings.allowOrigins.includes('*')) return '*';
    return settings.allowOrigins.includes(origin) ? origin : undefined;
  };
  const credentials: Array<[string, string]> = settings.allowCredentials ? [['access-control-allow-credentials', 'true']] : [];

  return {
    preflight(method, headers) {
      if (method !== 'OPTIONS' || single(headers['access-control-request-method']) === undefined) return undefined;
      const origin = allowedOrigin(headers);
      if (single(headers.origin) === undefined) return undefined;
      return {
        statusCode: 204,
        headers:
          origin === undefined
            ? []
            : [
                ['access-control-allow-origin', origin],
                ['access-control-allow-methods', settings.allowMethods.join(',')],
                ['access-control-allow-headers', settings.allowHeaders.join(',')],
                ['access-control-max-age', String(settings.maxAgeSeconds)],
                ...credentials,
              ],
        body: Buffer.alloc(0),
      };
    },
    apply(response, headers) {
      const kept = response.headers.filter(([name]) => !name.toLowerCase().startsWith('access-control-'));
      const origin = allowedOrigin(headers);
      if (origin === undefined) return { ...response, headers: kept };
      return {
        ...response,
        headers: [
          ...kept,
          ['access-control-allow-origin', origin],
          ['access-control-expose-headers', settings.exposeHeaders.join(',')],
          ...credentials,
        ],
      };
    },
  };
}
