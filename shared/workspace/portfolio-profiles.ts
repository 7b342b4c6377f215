import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Jurisdiction } from '../companies/profile';
import { profileKey } from '../companies/search-index';
import { batchGet } from '../storage/batch';
import type { PortfolioProfile } from './portfolio';

/**
 * The portfolio's columns of many profiles, read without the rest of each item (overview, filing
 * behaviour, provenance, the search words), eventually consistent (half the read units; a table to
 * look over needs no read-after-write). Read units still count whole items: what the projection saves
 * is transfer and parsing, which grow with a register profile's provenance and filed figures.
 */
const COLUMNS = {
  expression:
    'jurisdiction, companyNumber, #name, updatedAt, tradingStatus.#status, tradingStatus.registerStatus, ' +
    'riskOfFailure.#level, riskOfFailure.score, riskOfFailure.previous, creditCapacity.creditLimit, creditCapacity.reason.code, earlySignals.signals',
  names: { '#name': 'name', '#status': 'status', '#level': 'level' },
} as const;

export function portfolioProfileReader(doc: DynamoDBDocumentClient, tableName: string) {
  return async (keys: ReadonlyArray<{ jurisdiction: Jurisdiction; companyNumber: string }>): Promise<Map<string, PortfolioProfile>> => {
    const unique = new Map(
      keys.map((key) => [`${key.jurisdiction}#${key.companyNumber}`, profileKey(key.jurisdiction, key.companyNumber)]),
    );
    const items = await batchGet<PortfolioProfile>(doc, tableName, [...unique.values()], COLUMNS, {
      // A table to look over, not a read before a write: a profile a second old is as good.
      consistentRead: false,
    });
    return new Map(items.map((item) => [`${item.jurisdiction}#${item.companyNumber}`, item]));
  };
}
