import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { applyDemoChange } from '../../demo/company-changes';
import { startLocalRuntime } from '../../local/runtime';
import { requestToken } from '../../packages/client/src/index';
import { DynamoCompanyStore } from '../../shared/companies/dynamo-company-store';
import { keyOf } from '../../shared/companies/stored-profile';
import { createDocumentClient, createDynamoClient } from '../../shared/storage/dynamo';
import { profileContent } from '../support/profile-fixture';
import { type ReceivedDelivery, startWebhookReceiver } from '../support/webhook-receiver';
import type { BenchContext } from './support/context';
import { summarize } from './support/stats';
import { latencyTable } from './support/table';

export const name = 'Register stream: an event published on the Companies House stream to the webhook it causes';

const COMPANY = '15380840';

/**
 * One local runtime with its register emulator publishing nothing by itself: each round publishes a
 * status change of a watched company on the companies stream and waits for the webhook, so the time
 * is the stream's whole path (emulator → reader → batch → apply → companies table → detector → fan-out
 * → sender). The baseline is the same change written straight to the table, as an import would.
 */
export async function run(context: BenchContext): Promise<void> {
  const rounds = context.scale === 'small' ? 60 : 300;
  const dataDir = mkdtempSync(join(tmpdir(), 'bureau-bench-stream-'));
  const receiver = await startWebhookReceiver();
  const runtime = await startLocalRuntime({
    port: 0,
    inMemory: true,
    dataDir,
    quiet: true,
    environment: { POWERTOOLS_LOG_LEVEL: 'WARN', REGISTER_STREAM_EVENTS_PER_SECOND: '0' },
  });
  try {
    const doc = createDocumentClient(createDynamoClient(runtime.env));
    const store = new DynamoCompanyStore(doc, runtime.tables.companies as string);
    await store.save(profileContent({ companyNumber: COMPANY, name: 'CPA GATES LTD' }));
    const { accessToken: token } = await requestToken({
      baseUrl: runtime.baseUrl,
      clientId: runtime.demoClient.clientId,
      clientSecret: runtime.demoClient.clientSecret,
    });
    const authorization = { authorization: `Bearer ${token}` };
    await fetch(`${runtime.baseUrl}/v1/profile/${COMPANY}?jurisdiction=GB`, { headers: authorization });
    await fetch(`${runtime.baseUrl}/v1/webhooks`, {
      method: 'POST',
      headers: { ...authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'stream latency', url: `${receiver.url}/stream` }),
    });
    // Matched by the version the change wrote, so a late webhook of an earlier round never counts for a later one.
    const delivered = (version: number) => (delivery: ReceivedDelivery) =>
      delivery.path === '/stream' && delivery.body.includes(`:v${version}"`);
    const storedVersion = async () =>
      (
        await doc.send(
          new GetCommand({
            TableName: runtime.tables.companies,
            Key: keyOf({ jurisdiction: 'GB', companyNumber: COMPANY }),
            ConsistentRead: true,
          }),
        )
      ).Item?.version as number;

    const direct: number[] = [];
    for (let round = 0; round < Math.min(rounds, 40) + 5; round++) {
      const started = Date.now();
      const profile = await applyDemoChange(store, 'GB', COMPANY, 'risk');
      const [delivery] = await receiver.waitFor(delivered(profile.version), 1, 30_000);
      // The first rounds start the functions' instances: cold starts, not the steady state.
      if (round >= 5) direct.push((delivery as ReceivedDelivery).receivedAt - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const { emulator } = runtime.registerStreams;
    const viaStream: number[] = [];
    const missed: string[] = [];
    for (let round = 0; round < rounds + 5; round++) {
      const next = (await storedVersion()) + 1;
      const started = Date.now();
      emulator.publish('companies', {
        resource_kind: 'company-profile',
        resource_uri: `/company/${COMPANY}`,
        resource_id: COMPANY,
        data: {
          company_name: 'CPA GATES LTD',
          company_number: COMPANY,
          company_status: round % 2 === 0 ? 'liquidation' : 'active',
          type: 'ltd',
          date_of_creation: '2024-01-02',
        },
        event: { fields_changed: ['company_status'] },
      });
      const arrived = await receiver.waitFor(delivered(next), 1, 5_000).catch(() => undefined);
      if (!arrived) {
        missed.push(`${round} (now v${await storedVersion()})`);
        continue;
      }
      if (round >= 5) viaStream.push((arrived[0] as ReceivedDelivery).receivedAt - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (missed.length > 0) context.log(`no webhook within 5 s after the events of rounds ${missed.join(', ')}`);
    if (viaStream.length === 0) {
      throw new Error(`No webhook followed any of ${rounds + 5} stream events: is the applier deriving a status change into a block?`);
    }
    context.report(
      latencyTable(`Change to webhook, one at a time (${missed.length} of ${rounds + 5} stream events with no webhook within 5 s)`, [
        { label: 'baseline: profile written to the table → webhook', stats: summarize(direct) },
        { label: 'companies stream event published → webhook', stats: summarize(viaStream) },
      ]),
    );
  } finally {
    await runtime.stop();
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
