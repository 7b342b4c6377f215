import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../storage/batch';
import type { KeyRange, NameIndex, PartitionPage } from './company-store';
import type { Jurisdiction } from './profile';
import type { IndexItem, SearchEntry } from './search-index';
import { readStoredProfile, storedEntryOf } from './stored-profile';
import { variantKey } from './vocabulary';

/** The name index, the company a number names, and the spelling vocabulary, as search reads them: reads only. */
export class DynamoNameIndex implements NameIndex {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async queryPartition(pk: string, range: KeyRange, limit: number): Promise<PartitionPage> {
    const result = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :upper',
        ExpressionAttributeValues: { ':pk': pk, ':from': range.after ?? range.lower, ':upper': range.upper },
        Limit: limit,
      }),
    );
    const items = (result.Items ?? []) as IndexItem[];
    return {
      // BETWEEN is inclusive: the item the range starts after was already read.
      items: range.after === undefined ? items : items.filter((item) => item.sk !== range.after),
      more: result.LastEvaluatedKey !== undefined,
    };
  }

  async entryByNumber(jurisdiction: Jurisdiction, companyNumber: string): Promise<SearchEntry | undefined> {
    const stored = await readStoredProfile(this.doc, this.tableName, jurisdiction, companyNumber, false);
    return stored && storedEntryOf(stored);
  }

  /** The vocabulary's candidate words under each key (a word or one of its deletions), in one batched read. */
  async variantWords(jurisdiction: Jurisdiction, variants: readonly string[]): Promise<Map<string, readonly string[]>> {
    const items = await batchGet<{ pk: string; words?: Set<string> }>(
      this.doc,
      this.tableName,
      [...new Set(variants)].map((variant) => variantKey(jurisdiction, variant)),
    );
    const prefix = `D#${jurisdiction}#`;
    return new Map(items.map((item) => [item.pk.slice(prefix.length), [...(item.words ?? [])]]));
  }
}
