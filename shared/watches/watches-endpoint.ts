import type { ProtectedHandler } from '../auth/protect';
import { limitParam, singleParam } from '../companies/request-params';
import { badRequest } from '../http/errors';
import { json } from '../http/responses';
import { InvalidWatchCursorError, type WatchStore } from './watch-store';

export interface WatchesEndpointDeps {
  readonly watches: Pick<WatchStore, 'listWatches'>;
}

/** GET /v1/watches?limit=&cursor= — the companies the calling client has fetched. */
export function createWatchesEndpoint(deps: WatchesEndpointDeps): ProtectedHandler {
  return async (request, principal) => {
    const limit = limitParam(request.query);
    const cursor = singleParam(request.query, 'cursor', 'invalid_cursor');
    try {
      const page = await deps.watches.listWatches(principal.clientId, { limit, cursor });
      return json(200, { items: page.items, nextCursor: page.nextCursor ?? null }, { 'cache-control': 'private, no-cache' });
    } catch (error) {
      if (error instanceof InvalidWatchCursorError) throw badRequest('invalid_cursor', `${error.message}.`, { parameter: 'cursor' });
      throw error;
    }
  };
}
