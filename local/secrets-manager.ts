import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FileKeySetSource } from './key-file';

/** The name the local runtime gives the signing-key secret; deployed, the stack names its own. */
export const LOCAL_SIGNING_KEY_SECRET_ID = 'bureau-local-signing-keys';

export interface LocalSecretsManager {
  /** Give it to a function as SECRETS_MANAGER_ENDPOINT. */
  readonly endpoint: string;
  stop(): Promise<void>;
}

const MAX_REQUEST_BYTES = 64 * 1024;

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_REQUEST_BYTES) throw new Error('request too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

/**
 * Secrets Manager's GetSecretValue, over its own wire protocol (JSON 1.1, the operation in
 * X-Amz-Target), answering for the signing-key secret from the local key file. The token function
 * then reads its keys exactly as it does deployed, through the SDK, and the key file stays the one
 * the CLI rotates and revokes. It listens on loopback only.
 */
export async function startLocalSecretsManager(options: { signingKeyFile: string }): Promise<LocalSecretsManager> {
  const keyFile = new FileKeySetSource(options.signingKeyFile, { cacheSeconds: 0 });
  const reply = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(JSON.stringify(body));
  };
  const server = createServer(async (request, response) => {
    try {
      const operation = String(request.headers['x-amz-target'] ?? '').replace(/^secretsmanager\./, '');
      const input = await bodyOf(request);
      if (operation !== 'GetSecretValue') {
        return reply(response, 400, {
          __type: 'UnknownOperationException',
          message: `The local stand-in serves GetSecretValue, not ${operation}`,
        });
      }
      const stage = input.VersionStage ?? 'AWSCURRENT';
      if (input.SecretId !== LOCAL_SIGNING_KEY_SECRET_ID || stage !== 'AWSCURRENT') {
        return reply(response, 400, { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." });
      }
      const keySet = await keyFile.get();
      reply(response, 200, {
        ARN: `arn:aws:secretsmanager:eu-west-2:000000000000:secret:${LOCAL_SIGNING_KEY_SECRET_ID}`,
        Name: LOCAL_SIGNING_KEY_SECRET_ID,
        SecretString: JSON.stringify(keySet),
        VersionStages: ['AWSCURRENT'],
      });
    } catch (error) {
      reply(response, 500, { __type: 'InternalServiceError', message: (error as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
