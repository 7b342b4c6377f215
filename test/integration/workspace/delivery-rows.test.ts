import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoCompanyStore } from '../../../shared/companies/dynamo-company-store';
import { companiesTable } from '../../../shared/storage/tables';
import type { DeliveryAttemptView } from '../../../shared/webhooks/wire';
import { deliveryRows } from '../../../shared/workspace/delivery-rows';
import { createTestTables } from '../../support/dynamo';
import { profileContent } from '../../support/profile-fixture';

let companies: DynamoCompanyStore;

beforeAll(async () => {
  const tables = await createTestTables([{ ...companiesTable, stream: undefined }]);
  companies = new DynamoCompanyStore(tables.doc, tables.names.companies as string);
  await companies.save(profileContent({ companyNumber: '15380840', name: 'CPA GATES LTD' }));
});

const attempt = (fields: Partial<DeliveryAttemptView>): DeliveryAttemptView => ({
  deliveryId: `msg_${'a'.repeat(27)}`,
  eventType: 'profile.changed',
  idempotencyKey: 'profile.changed:GB:15380840:overview:v2',
  jurisdiction: 'GB',
  companyNumber: '15380840',
  block: 'overview',
  attempt: 1,
  attemptedAt: '2026-11-24T12:00:00.000Z',
  outcome: 'delivered',
  httpStatus: 200,
  responseBody: null,
  responseBodyTruncated: null,
  error: null,
  errorMessage: null,
  durationMs: 10,
  nextAttemptAt: null,
  ...fields,
});

describe('the delivery log as the workspace shows it', () => {
  it("names each attempt's company when it is held here, and no company for a test event or one it does not hold", async () => {
    const page = {
      items: [
        attempt({ attempt: 2 }),
        attempt({ attempt: 1 }),
        attempt({ companyNumber: '00000009', idempotencyKey: 'profile.changed:GB:00000009:overview:v2' }),
        attempt({ eventType: 'webhook.test', jurisdiction: null, companyNumber: null, block: null }),
      ],
      nextCursor: 'next',
    };

    const rows = await deliveryRows(page, companies);

    expect(rows.items.map((row) => row.companyName)).toEqual(['CPA GATES LTD', 'CPA GATES LTD', null, null]);
    expect(rows.items[0]).toMatchObject({ attempt: 2, companyNumber: '15380840' });
    expect(rows.nextCursor).toBe('next');
  });

  it('reads nothing for a page without companies', async () => {
    const rows = await deliveryRows({ items: [], nextCursor: null }, { getMany: () => Promise.reject(new Error('read')) });

    expect(rows).toEqual({ items: [], nextCursor: null });
  });
});
