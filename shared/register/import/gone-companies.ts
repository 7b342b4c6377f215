import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { ProfileDraft } from '../../companies/company-store';
import { DynamoCompanyStore } from '../../companies/dynamo-company-store';
import type { CompanyProfile, EarlySignal, Jurisdiction, ProfileContent, Provenance } from '../../companies/profile';
import { PROFILE_SORT_KEY } from '../../companies/search-index';
import type { SnapshotCoverage } from './sweep-guard';

/**
 * Companies missing from a snapshot. The Companies House bulk file lists live companies only, so a
 * company the previous snapshot listed and this one does not has been dissolved or removed from
 * the register; the CRO file lists ended companies too, so one missing there has been removed.
 * Every import records on each profile the latest snapshot that listed it (registerSnapshot); once
 * a whole snapshot is in, a sweep finds the register profiles it did not list and marks them gone.
 */

/** Stated in full in docs/profile.md, under its id. */
export const GONE_RULE = 'register-gone-v1';

/** The profile of a company a snapshot no longer lists: ended, at the snapshot's date. */
export function goneProfile(current: CompanyProfile, asOf: string): ProfileContent {
  // The snapshot that no longer lists the company says so, whichever door last told its status.
  const source: Provenance['source'] = current.jurisdiction === 'IE' ? 'cro-companies' : 'companies-house-basic-company-data';
  const provenance: Provenance = {
    source,
    asOf,
    rule: GONE_RULE,
    facts: { 'snapshots.lastListedOn': current.tradingStatus.provenance?.asOf ?? null },
  };
  const at = `${asOf}T00:00:00Z`;
  const signals: EarlySignal[] = current.earlySignals.signals.map((signal) =>
    signal.state === 'active' ? { ...signal, state: 'expired', updatedAt: at } : signal,
  );
  const id = `removed-${asOf}`;
  if (!signals.some((signal) => signal.id === id)) {
    signals.push({
      id,
      kind: 'removed',
      state: 'active',
      severity: 'critical',
      summary:
        source === 'companies-house-basic-company-data'
          ? `No longer in Companies House's file of live companies on ${asOf}: dissolved or removed from the register`
          : `No longer in the CRO companies file on ${asOf}: removed from the register`,
      detectedAt: at,
      updatedAt: at,
    });
  }
  const { version: _version, updatedAt: _updatedAt, ...content } = current;
  return {
    ...content,
    tradingStatus: { status: 'removed', registerStatus: 'Not in the register snapshot', since: asOf, provenance },
    filingBehaviour: {
      ...current.filingBehaviour,
      nextAccountsDueOn: null,
      accountsOverdue: false,
      confirmationStatementOverdue: false,
      provenance,
    },
    riskOfFailure: {
      level: 'Severe',
      score: 100,
      assessedOn: asOf,
      drivers: ['No longer on the register (dissolved or removed)'],
      provenance,
    },
    creditCapacity: {
      creditLimit: null,
      tradeLimit: null,
      reason: { code: 'ended', message: 'No longer on the register (dissolved or removed): no credit can be extended' },
      drivers: ['No longer on the register (dissolved or removed): no credit can be extended'],
      assessedOn: asOf,
      provenance,
    },
    earlySignals: { signals, provenance },
  };
}

export interface SweepRequest {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly jurisdiction: Jurisdiction;
  /** The snapshot just imported in full. */
  readonly asOf: string;
  /** Which part of a parallel scan this is; one part of one when absent. */
  readonly segment?: number;
  readonly totalSegments?: number;
  /** Called after each page of the scan. */
  readonly onProgress?: (progress: { scanned: number; gone: number }) => void;
}

export interface SweepResult {
  readonly scanned: number;
  readonly gone: number;
  /** Companies whose profile could not be written; the sweep can be run again for them. */
  readonly failed: number;
}

/**
 * Scans one segment of the companies table for register profiles of the jurisdiction last listed
 * before `asOf`, and saves each as gone (its registerSnapshot becomes `asOf`, so running the sweep
 * again finds nothing more to do).
 */
export async function sweepGoneCompanies(request: SweepRequest): Promise<SweepResult> {
  const store = new DynamoCompanyStore(request.doc, request.tableName);
  let scanned = 0;
  let gone = 0;
  let failed = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await request.doc.send(
      new ScanCommand({
        TableName: request.tableName,
        ...(request.totalSegments ? { Segment: request.segment ?? 0, TotalSegments: request.totalSegments } : {}),
        // Names through placeholders: the scan must not trip on DynamoDB's long list of reserved words.
        FilterExpression: '#sk = :profile AND #jurisdiction = :jurisdiction AND #snapshot < :asOf',
        ProjectionExpression: '#jurisdiction, #number',
        ExpressionAttributeNames: {
          '#sk': 'sk',
          '#jurisdiction': 'jurisdiction',
          '#number': 'companyNumber',
          '#snapshot': 'registerSnapshot',
        },
        ExpressionAttributeValues: { ':profile': PROFILE_SORT_KEY, ':jurisdiction': request.jurisdiction, ':asOf': request.asOf },
        ExclusiveStartKey: startKey,
      }),
    );
    scanned += page.ScannedCount ?? 0;
    const drafts: ProfileDraft[] = (page.Items ?? []).map((item) => ({
      jurisdiction: item.jurisdiction as Jurisdiction,
      companyNumber: item.companyNumber as string,
      registerSnapshot: request.asOf,
      derive: (current) => {
        if (!current) throw new Error(`${item.jurisdiction} ${item.companyNumber} was deleted during the sweep`);
        return goneProfile(current, request.asOf);
      },
    }));
    for (const result of await store.saveMany(drafts)) {
      if (result.status === 'fulfilled') gone++;
      else failed++;
    }
    request.onProgress?.({ scanned, gone });
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { scanned, gone, failed };
}

/**
 * Counts one segment's register profiles of the jurisdiction: those the snapshot of `asOf` listed,
 * and those it did not that are not already removed (the ones a sweep would mark). What the sweep
 * guard (sweep-guard.ts) weighs before any company is marked.
 */
export async function countSnapshotCoverage(
  request: Omit<SweepRequest, 'onProgress'>,
): Promise<SnapshotCoverage & { readonly scanned: number }> {
  let scanned = 0;
  let listed = 0;
  let unlisted = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await request.doc.send(
      new ScanCommand({
        TableName: request.tableName,
        ...(request.totalSegments ? { Segment: request.segment ?? 0, TotalSegments: request.totalSegments } : {}),
        FilterExpression: '#sk = :profile AND #jurisdiction = :jurisdiction AND attribute_exists(#snapshot)',
        ProjectionExpression: '#snapshot, #trading.#status',
        ExpressionAttributeNames: {
          '#sk': 'sk',
          '#jurisdiction': 'jurisdiction',
          '#snapshot': 'registerSnapshot',
          '#trading': 'tradingStatus',
          '#status': 'status',
        },
        ExpressionAttributeValues: { ':profile': PROFILE_SORT_KEY, ':jurisdiction': request.jurisdiction },
        ExclusiveStartKey: startKey,
      }),
    );
    scanned += page.ScannedCount ?? 0;
    for (const item of page.Items ?? []) {
      if (item.registerSnapshot >= request.asOf) listed++;
      else if (item.tradingStatus?.status !== 'removed') unlisted++;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { scanned, listed, unlisted };
}
