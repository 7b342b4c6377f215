import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { CompanyProfile, Jurisdiction, ProfileContent } from './profile';
import { profileKey, type SearchEntry, searchEntryOf } from './search-index';

/** The profile item as stored: the content plus bookkeeping the API never shows. */
export interface StoredProfile extends CompanyProfile {
  readonly contentHash: string;
  readonly normalizedName: string;
  readonly words: readonly string[];
  /** Date of the latest register snapshot that listed the company, for register profiles. */
  readonly registerSnapshot?: string;
}

/** The profile as the API shows it: exactly its fields, none of the bookkeeping. */
export function profileOf(item: CompanyProfile): CompanyProfile {
  return {
    jurisdiction: item.jurisdiction,
    companyNumber: item.companyNumber,
    name: item.name,
    version: item.version,
    updatedAt: item.updatedAt,
    dataSource: item.dataSource,
    overview: item.overview,
    tradingStatus: item.tradingStatus,
    filingBehaviour: item.filingBehaviour,
    riskOfFailure: item.riskOfFailure,
    creditCapacity: item.creditCapacity,
    earlySignals: item.earlySignals,
  };
}

function contentOf(item: CompanyProfile): ProfileContent {
  const { version: _version, updatedAt: _updatedAt, ...content } = profileOf(item);
  return content;
}

/** The search projection of a stored profile, from the name it was indexed under. */
export const storedEntryOf = (item: StoredProfile): SearchEntry =>
  searchEntryOf(contentOf(item), { normalizedName: item.normalizedName, words: item.words });

export const keyOf = (content: Pick<ProfileContent, 'jurisdiction' | 'companyNumber'>) =>
  profileKey(content.jurisdiction, content.companyNumber);
export const keyText = (content: Pick<ProfileContent, 'jurisdiction' | 'companyNumber'>) => keyOf(content).pk;

/** One stored profile; consistent when it is about to be replaced. */
export async function readStoredProfile(
  doc: DynamoDBDocumentClient,
  tableName: string,
  jurisdiction: Jurisdiction,
  companyNumber: string,
  consistent: boolean,
): Promise<StoredProfile | undefined> {
  const result = await doc.send(
    new GetCommand({ TableName: tableName, Key: profileKey(jurisdiction, companyNumber), ConsistentRead: consistent }),
  );
  return result.Item as StoredProfile | undefined;
}
