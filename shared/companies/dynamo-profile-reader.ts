import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../storage/batch';
import type { CompanyStore, ProfileRecord } from './company-store';
import type { CompanyProfile, Jurisdiction } from './profile';
import { riskAsShown } from './risk-history';
import { profileKey } from './search-index';
import { keyText, profileOf, readStoredProfile, type StoredProfile } from './stored-profile';

/**
 * Company profiles in the companies table, as the API serves them: reads only. What writes them lives
 * apart (the register import's and stream's functions, the CLI), so the API's functions carry no write path.
 */
export class DynamoProfileReader implements Pick<CompanyStore, 'get' | 'getRecord' | 'getMany'> {
  constructor(
    protected readonly doc: DynamoDBDocumentClient,
    protected readonly tableName: string,
  ) {}

  async get(jurisdiction: Jurisdiction, companyNumber: string): Promise<CompanyProfile | undefined> {
    const stored = await this.read(jurisdiction, companyNumber, false);
    return stored && shownProfileOf(stored);
  }

  async getMany(keys: ReadonlyArray<{ jurisdiction: Jurisdiction; companyNumber: string }>): Promise<Map<string, CompanyProfile>> {
    const items = await batchGet<StoredProfile>(this.doc, this.tableName, [
      ...new Map(keys.map((key) => [`${key.jurisdiction}#${key.companyNumber}`, profileKey(key.jurisdiction, key.companyNumber)])).values(),
    ]);
    return new Map(items.map((item) => [keyText(item), shownProfileOf(item)]));
  }

  async getRecord(jurisdiction: Jurisdiction, companyNumber: string): Promise<ProfileRecord | undefined> {
    const stored = await this.read(jurisdiction, companyNumber, false);
    return stored && { profile: shownProfileOf(stored), contentHash: stored.contentHash };
  }

  /** One stored profile, bookkeeping included; consistent when it is about to be replaced. */
  protected read(jurisdiction: Jurisdiction, companyNumber: string, consistent: boolean): Promise<StoredProfile | undefined> {
    return readStoredProfile(this.doc, this.tableName, jurisdiction, companyNumber, consistent);
  }
}

/** What the API shows of a stored profile: its fields alone, every one present (null where nothing is held). */
function shownProfileOf(item: StoredProfile): CompanyProfile {
  const profile = profileOf(item);
  return { ...profile, riskOfFailure: riskAsShown(profile.riskOfFailure) };
}
