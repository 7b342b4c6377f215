import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import type { FakeSecretsManager } from './fake-secrets-manager';

// biome-ignore lint/suspicious/noExplicitAny: each operation's input arrives as the JSON the SDK sent
type Input = any;
const OPERATIONS: Readonly<Record<string, (input: Input) => unknown>> = {
  DescribeSecret: (input) => new DescribeSecretCommand(input),
  GetSecretValue: (input) => new GetSecretValueCommand(input),
  PutSecretValue: (input) => new PutSecretValueCommand(input),
  UpdateSecretVersionStage: (input) => new UpdateSecretVersionStageCommand(input),
};

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

/**
 * The fake served over Secrets Manager's own wire protocol (JSON 1.1, the operation in X-Amz-Target)
 * on loopback, for code that builds its own SDK client, such as a function in a worker thread:
 * SECRETS_MANAGER_ENDPOINT points that client here.
 */
export async function serveSecretsManager(fake: FakeSecretsManager): Promise<{ url: string; stop(): Promise<void> }> {
  const server = createServer(async (request, response) => {
    const operation = String(request.headers['x-amz-target'] ?? '').replace(/^secretsmanager\./, '');
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(body));
    };
    try {
      const command = OPERATIONS[operation];
      if (!command) return reply(400, { __type: 'UnknownOperationException', message: `The fake does not serve ${operation}` });
      reply(200, await fake.send(command(await bodyOf(request))));
    } catch (error) {
      reply(400, { __type: (error as Error).name, message: (error as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
