import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openApiDocument } from '../../shared/openapi/document';
import { createDocumentEndpoint } from '../../shared/openapi/document-endpoint';
import type { BenchContext } from './support/context';
import { benchRequest } from './support/http';
import { latencyTable } from './support/table';
import { timeInterleaved } from './support/timing';

export const name = 'OpenAPI document';

/** A loopback HTTP server answering every request with `answer`. */
async function serve(answer: (request: { etag?: string }) => Promise<{ status: number; headers?: Record<string, string>; body?: string }>) {
  const server: Server = createServer(async (request, response) => {
    const { status, headers = {}, body } = await answer({ etag: request.headers['if-none-match'] });
    response.writeHead(status, headers);
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/openapi.json`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * What serving the document costs: the handler in-process (a whole 200, and the 304 a client that
 * holds its ETag gets), then over loopback HTTP against a server that answers 204 at once, the
 * cost of one round trip and nothing else.
 */
export async function run(context: BenchContext): Promise<void> {
  const loop = context.scale === 'full' ? { warmup: 500, iterations: 10_000 } : { warmup: 200, iterations: 2000 };
  const endpoint = createDocumentEndpoint(openApiDocument);
  const first = await endpoint(benchRequest({ method: 'GET', path: '/v1/openapi.json' }));
  const etag = first.headers?.etag as string;
  const whole = benchRequest({ method: 'GET', path: '/v1/openapi.json' });
  const conditional = benchRequest({ method: 'GET', path: '/v1/openapi.json', headers: { 'if-none-match': etag } });

  const [serialise, handlerWhole, handlerConditional] = await timeInterleaved(
    [async () => JSON.stringify(openApiDocument), () => endpoint(whole), () => endpoint(conditional)],
    loop,
  );
  context.report(
    latencyTable(
      `The document's handler in-process (${(String(first.body).length / 1024).toFixed(0)} KiB) vs serialising the document once`,
      [
        { label: 'baseline: JSON.stringify(document)', stats: serialise },
        { label: 'handler, 200 with the document', stats: handlerWhole },
        { label: 'handler, 304 for its ETag', stats: handlerConditional },
      ],
    ),
  );

  const bare = await serve(async () => ({ status: 204 }));
  const served = await serve(async (request) => {
    const response = await endpoint(request.etag ? conditional : whole);
    return {
      status: response.status,
      headers: response.headers as Record<string, string>,
      ...(response.body === undefined ? {} : { body: String(response.body) }),
    };
  });
  try {
    const [roundTrip, fetchWhole, fetchConditional] = await timeInterleaved(
      [
        async () => void (await fetch(bare.url)).arrayBuffer(),
        async () => void (await fetch(served.url)).arrayBuffer(),
        async () => void (await fetch(served.url, { headers: { 'if-none-match': etag } })).arrayBuffer(),
      ],
      loop,
    );
    context.report(
      latencyTable('GET /v1/openapi.json over loopback HTTP vs one bare round trip (a server answering 204)', [
        { label: 'baseline: bare round trip', stats: roundTrip },
        { label: 'document, 200', stats: fetchWhole },
        { label: 'document, 304 (cached by the client)', stats: fetchConditional },
      ]),
    );
  } finally {
    await bare.close();
    await served.close();
  }
}
