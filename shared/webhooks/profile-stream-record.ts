import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { CompanyProfile } from '../companies/profile';
import { PROFILE_SORT_KEY } from '../companies/search-index';
import type { ProfileChange } from './change-detector';

/**
 * The stream filter, as data: the CDK stack turns it into the mapping's FilterCriteria and the local
 * runtime into its poller's filter, so both hand the detector the same records. Only rewrites of a
 * profile item: a new company has no watcher yet, name-index items are not profiles, and removals
 * have no event in the spec.
 */
export interface StreamFilter {
  readonly eventNames: readonly ('INSERT' | 'MODIFY' | 'REMOVE')[];
  /** A string key attribute that must equal this value. */
  readonly key: { readonly attribute: string; readonly equals: string };
}

export const PROFILE_CHANGE_FILTER: StreamFilter = { eventNames: ['MODIFY'], key: { attribute: 'sk', equals: PROFILE_SORT_KEY } };

/**
 * What a filter reads of a record: its event name and keys, which a Streams API record and a Lambda
 * event record both carry in this shape. As on AWS, a record is filtered before anything else of it
 * (its images) is read.
 */
export interface FilterableStreamRecord {
  readonly eventName?: string;
  readonly dynamodb?: { readonly Keys?: Record<string, { readonly S?: string }> };
}

export function matchesStreamFilter(filter: StreamFilter, record: FilterableStreamRecord): boolean {
  const key = record.dynamodb?.Keys?.[filter.key.attribute]?.S;
  return (filter.eventNames as readonly string[]).includes(record.eventName ?? '') && key === filter.key.equals;
}

const imageOf = (image: Record<string, AttributeValue>) =>
  unmarshall(image as unknown as Record<string, SdkAttributeValue>, { wrapNumbers: false }) as CompanyProfile;

/** The old and new profile of a stream record, or undefined for a record that is not a profile rewrite. */
export function profileChangeOf(record: DynamoDBRecord): ProfileChange | undefined {
  if (!matchesStreamFilter(PROFILE_CHANGE_FILTER, record)) return undefined;
  const { OldImage, NewImage } = record.dynamodb ?? {};
  if (!OldImage || !NewImage) throw new Error(`Stream record ${record.eventID} lacks its images: the stream must be NEW_AND_OLD_IMAGES`);
  return { before: imageOf(OldImage), after: imageOf(NewImage) };
}
