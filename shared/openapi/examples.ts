/*
 * Examples in the document: answers of the local runtime, copied as they came, except credentials
 * and secrets, which are placeholders no reader could take for real ones (your-client-id,
 * whsec_YourSigningSecret…). test/unit/openapi/document.test.ts validates each against its schema.
 */

export const tokenRequest = {
  grant_type: 'client_credentials',
  client_id: 'your-client-id',
  client_secret: 'your-client-secret',
};

export const token = {
  access_token:
    'eyJhbGciOiJFZERTQSIsInR5cCI6ImF0K2p3dCIsImtpZCI6Ijk3TTVwbmNKVmNNSmRwUi14XzVydXFidDQzVkdHazBrbjVId3duQlRXejAifQ.eyJjbGllbnRfaWQiOiJ5b3VyLWNsaWVudC1pZCJ9.c2lnbmF0dXJl',
  token_type: 'Bearer',
  expires_in: 3600,
};

export const jwks = {
  keys: [
    {
      x: 'u53LWhMsEfqpQtolhoqIdYLjwFYDepq9WD4afZTsmec',
      kty: 'OKP',
      alg: 'EdDSA',
      crv: 'Ed25519',
      use: 'sig',
      kid: '97M5pncJVcMJdpR-x_5ruqbt43VGGk0kn5HwwnBTWz0',
    },
  ],
};

export const searchPage = {
  items: [
    {
      companyNumber: '15380840',
      jurisdiction: 'GB',
      name: 'CPA GATES LTD',
      status: 'active',
      type: 'ltd',
      incorporatedOn: '2024-01-02',
      match: { type: 'exact' },
    },
  ],
  nextCursor: null,
};

export const profile = {
  jurisdiction: 'GB',
  companyNumber: '15380840',
  name: 'CPA GATES LTD',
  version: 1,
  updatedAt: '2026-11-25T07:48:50.917Z',
  dataSource: 'demo',
  overview: {
    sicCodes: ['71129'],
    complexity: 'simple',
    companyType: 'ltd',
    incorporatedOn: '2024-01-02',
    dissolvedOn: null,
    sizeBand: 'micro',
    maturity: 'young',
    employeesBand: '0-9',
    companySubtype: null,
    registeredOffice: 'Dean Cottage Arbour Lane Standish Wigan WN6 0YJ England',
  },
  tradingStatus: { registerStatus: 'Active', status: 'active', since: '2024-01-02' },
  filingBehaviour: {
    lateFilingsLast5Years: 0,
    lastConfirmationStatementOn: '2025-01-02',
    lastAccountsFiledOn: null,
    nextAccountsDueOn: '2025-10-02',
    confirmationStatementOverdue: false,
    consistency: 'no_history',
    accountsOverdue: false,
  },
  riskOfFailure: {
    score: 35,
    level: 'Moderate',
    assessedOn: '2025-06-30',
    drivers: ['Less than three years of trading history'],
    previous: { score: 25, level: 'Low', replacedAt: '2025-06-30T06:12:44.108Z' },
  },
  creditCapacity: {
    tradeLimit: { amountMinor: 49000, currency: 'GBP' },
    creditLimit: { amountMinor: 120000, currency: 'GBP' },
    assessedOn: '2025-06-30',
  },
  earlySignals: { signals: [] },
};

export const watchesPage = {
  items: [
    { jurisdiction: 'GB', companyNumber: '15380840', watchedSince: '2026-11-25T07:49:35.417Z', lastFetchedAt: '2026-11-25T07:49:35.417Z' },
  ],
  nextCursor: null,
};

export const newSubscription = { name: 'Production', url: 'https://hooks.example.com/bureau' };

export const subscriptionWithSecret = {
  id: 'wh_qvTQSux1sQkHIEZW',
  name: 'Production',
  url: 'https://hooks.example.com/bureau',
  status: 'ACTIVE',
  signingSecret: 'whsec_YourSigningSecretShownOnceKeepItSafe000000A=',
  createdAt: '2026-11-25T07:49:41.062Z',
  updatedAt: '2026-11-25T07:49:41.062Z',
  disabledReason: null,
  failingSince: null,
  filters: null,
};

const { signingSecret: _secret, ...listed } = subscriptionWithSecret;
export const subscriptionsPage = { items: [listed], nextCursor: null };

export const rotatedSubscription = {
  ...subscriptionWithSecret,
  updatedAt: '2026-11-25T07:49:41.388Z',
  signingSecret: 'whsec_YourNewSigningSecretAfterRotation000000000A=',
  previousSigningSecretExpiresAt: '2026-11-26T07:49:41.388Z',
};

export const deliveryId = 'msg_GUwanem_KDuhCJuYXvnKL5W7PJ_';

export const testEvent = {
  type: 'webhook.test',
  apiVersion: 'v1',
  occurredAt: '2026-11-25T07:49:41.302Z',
  idempotencyKey: 'webhook.test:wh_qvTQSux1sQkHIEZW:2NB2roYLqaS4',
  block: null,
  data: { jurisdiction: null, companyNumber: null },
};

export const testDelivery = { deliveryId, event: testEvent };

export const profileChanged = {
  type: 'profile.changed',
  apiVersion: 'v1',
  occurredAt: '2026-11-23T07:13:02.981Z',
  idempotencyKey: 'profile.changed:GB:15380840:riskOfFailure:v2',
  block: 'riskOfFailure',
  data: { jurisdiction: 'GB', companyNumber: '15380840' },
};

export const signalDetected = {
  type: 'profile.early_signal.detected',
  apiVersion: 'v1',
  occurredAt: '2026-11-23T07:13:02.981Z',
  idempotencyKey: 'early_signal:GB:15380840:sig_accounts_overdue_2025-10-02:active',
  block: 'earlySignals',
  data: { jurisdiction: 'GB', companyNumber: '15380840' },
};

export const signalUpdated = {
  ...signalDetected,
  type: 'profile.early_signal.updated',
  idempotencyKey: 'early_signal:GB:15380840:sig_accounts_overdue_2025-10-02:superseded',
};

export const eventsPage = { items: [{ id: 'evt_8yLxZ0vX2bW3c1HqQ1q2ZkZ9mPpR3ab', ...profileChanged }], nextCursor: null };

export const deliveriesPage = {
  items: [
    {
      deliveryId: 'msg_QTcHxJRzmE1glVv0Fd-cTKftnLj',
      eventType: 'profile.changed',
      idempotencyKey: 'profile.changed:GB:15380840:riskOfFailure:v2',
      jurisdiction: 'GB',
      companyNumber: '15380840',
      block: 'riskOfFailure',
      attempt: 2,
      attemptedAt: '2026-11-23T07:13:09.456Z',
      outcome: 'delivered',
      httpStatus: 200,
      responseBody: '{"received":true}',
      responseBodyTruncated: false,
      error: null,
      errorMessage: null,
      durationMs: 67,
      nextAttemptAt: null,
    },
  ],
  nextCursor: null,
};

export const unauthorized = {
  type: 'https://docs.bureau.example/errors/invalid_token',
  title: 'Unauthorized',
  status: 401,
  error: 'invalid_token',
  detail: 'The access token is not valid.',
};

export const rateLimited = {
  type: 'https://docs.bureau.example/errors/rate_limited',
  title: 'Too Many Requests',
  status: 429,
  error: 'rate_limited',
  detail: 'Rate limit of 600 calls a minute exceeded; retry after 17 s.',
};
