import { CachedClientLookup } from '../../shared/auth/client-cache';
import { loadAuthConfig } from '../../shared/auth/config';
import { DynamoClientRegistry } from '../../shared/auth/dynamo-client-registry';
import { RateLimiter } from '../../shared/auth/rate-limit';
import { TOKEN_PATH } from '../../shared/auth/token-endpoint';
import { DynamoProfileReader } from '../../shared/companies/dynamo-profile-reader';
import { DynamoClientEventStore } from '../../shared/events/dynamo-client-events';
import { createEventsEndpoint } from '../../shared/events/events-endpoint';
import { lambdaHttpHandler } from '../../shared/http/lambda';
import { sharedDocumentClient } from '../../shared/storage/dynamo';
import { companiesTable, eventsTable, tableName, watchesTable, workspaceTable } from '../../shared/storage/tables';
import { DynamoWatchStore } from '../../shared/watches/dynamo-watch-store';
import { createWebhooksEndpoint } from '../../shared/webhooks/webhooks-endpoint';
import { workspaceCookiePolicy, workspaceOrigin } from '../../shared/workspace/config';
import { DynamoWorkspaceStore } from '../../shared/workspace/dynamo-workspace-store';
import { Passkeys } from '../../shared/workspace/passkeys';
import { portfolioProfileReader } from '../../shared/workspace/portfolio-profiles';
import { WorkspaceAuth } from '../../shared/workspace/workspace-auth';
import { createWorkspaceEndpoint } from '../../shared/workspace/workspace-endpoint';
import { webhookUseCases } from '../webhook-use-cases';

/**
 * /workspace/api/…: the client workspace's JSON API. People sign in with the workspace table's
 * sessions; what they see and change is their own client's webhooks, deliveries and watches.
 */
const doc = sharedDocumentClient();
const workspace = tableName(workspaceTable);
const store = new DynamoWorkspaceStore(doc, workspace);
const auth = new WorkspaceAuth(store, new RateLimiter(doc, workspace));
const { subscriptions, deliveries } = webhookUseCases(doc);
const config = loadAuthConfig();
const origin = workspaceOrigin();

export const handler = lambdaHttpHandler(
  createWorkspaceEndpoint({
    auth,
    passkeys: new Passkeys(store, auth),
    clients: new CachedClientLookup(new DynamoClientRegistry(doc, config.clientsTable), { ttlSeconds: config.clientCacheSeconds }),
    limiter: new RateLimiter(doc, config.clientsTable),
    defaultRateLimitPerMinute: config.rateLimitPerMinute,
    webhooks: createWebhooksEndpoint(subscriptions, deliveries),
    events: createEventsEndpoint({ events: new DynamoClientEventStore(doc, tableName(eventsTable)), clock: () => new Date() }),
    deliveries,
    watches: new DynamoWatchStore(doc, tableName(watchesTable)),
    companies: new DynamoProfileReader(doc, tableName(companiesTable)),
    portfolioProfiles: portfolioProfileReader(doc, tableName(companiesTable)),
    cookies: workspaceCookiePolicy(),
    ...(origin ? { origin } : {}),
    tokenPath: TOKEN_PATH,
    clock: () => new Date(),
  }),
);
