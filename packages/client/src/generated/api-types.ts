/**
 * The Bureau API's request and response bodies, generated from its OpenAPI document's
 * components.schemas by tools/write-sdk-types.ts (npm run sdk:types). Do not edit by hand.
 */

/**
 * The `webhook-id` header of every attempt of the delivery.
 */
export type DeliveryId = string;
/**
 * A company's profile as GET /v1/profile/{companyNumber} returns it: identity, version, and the six blocks, each named as the webhook `block` value that refers to it. Version 1 changes only by addition. Dates are ISO 8601 calendar dates (YYYY-MM-DD); instants are ISO 8601 UTC date-times.
 */
export type Profile = {
  /**
   * The register: GB (Companies House, United Kingdom) or IE (Companies Registration Office, Ireland).
   */
  jurisdiction: 'GB' | 'IE';
  /**
   * The company number in canonical form: GB, 8 characters (8 digits, or a two-character prefix and 6 digits, upper case); IE, the CRO number as a whole number without leading zeros.
   */
  companyNumber: string;
  /**
   * The registered name, as the register spells it.
   */
  name: string;
  /**
   * Increases by at least one with every change to the profile's content; never decreases. Also the profile's ETag.
   */
  version: number;
  /**
   * When the content last changed.
   */
  updatedAt: string;
  /**
   * 'register': every block comes from registers and the credit model. 'demo': the blocks beyond the register facts are derived demo values, not assessments.
   */
  dataSource: 'register' | 'demo';
  overview: ProfileOverview;
  tradingStatus: ProfileTradingStatus;
  filingBehaviour: ProfileFilingBehaviour;
  riskOfFailure: ProfileRiskOfFailure;
  creditCapacity: ProfileCreditCapacity;
  earlySignals: ProfileEarlySignals;
};

/**
 * Every schema of the API by its component name.
 */
export interface ApiSchemas {
  ClientEvent: ClientEvent;
  DeliveriesPage: DeliveriesPage;
  DeliveryAttempt: DeliveryAttempt;
  DeliveryId: DeliveryId;
  EarlySignal: EarlySignal;
  EventsPage: EventsPage;
  FiledAmount: FiledAmount;
  Financials: Financials;
  GatewayError: GatewayError;
  JsonWebKeySet: JsonWebKeySet;
  Money: Money;
  NewSubscription: NewSubscription;
  OAuthError: OAuthError;
  PeriodFinancials: PeriodFinancials;
  PreviousRisk: PreviousRisk;
  Problem: Problem;
  Profile: Profile;
  ProfileCreditCapacity: ProfileCreditCapacity;
  ProfileEarlySignals: ProfileEarlySignals;
  ProfileFilingBehaviour: ProfileFilingBehaviour;
  ProfileOverview: ProfileOverview;
  ProfileRiskOfFailure: ProfileRiskOfFailure;
  ProfileTradingStatus: ProfileTradingStatus;
  Provenance: Provenance;
  Recovery: Recovery;
  RecoveryRequest: RecoveryRequest;
  RetryQueued: RetryQueued;
  RotatedSubscription: RotatedSubscription;
  SearchMatch: SearchMatch;
  SearchPage: SearchPage;
  SearchResult: SearchResult;
  Subscription: Subscription;
  SubscriptionChange: SubscriptionChange;
  SubscriptionFilters: SubscriptionFilters;
  SubscriptionFiltersInput: SubscriptionFiltersInput;
  SubscriptionWithSecret: SubscriptionWithSecret;
  SubscriptionsPage: SubscriptionsPage;
  TestDelivery: TestDelivery;
  Token: Token;
  TokenRequest: TokenRequest;
  Watch: Watch;
  WatchesPage: WatchesPage;
  WebhookEvent: WebhookEvent;
}
/**
 * An event as GET /v1/events lists it: the webhook body with an id of its own, the same for every reader.
 */
export interface ClientEvent {
  id: string;
  type: 'profile.changed' | 'profile.early_signal.detected' | 'profile.early_signal.updated' | 'webhook.test';
  apiVersion: 'v1';
  /**
   * The profile's `updatedAt` after the change; for a test event, when it was requested.
   */
  occurredAt: string;
  /**
   * Derived from the change alone: `profile.changed:<jurisdiction>:<number>:<block>:v<version>`, `early_signal:<jurisdiction>:<number>:<signalId>:<state>`, or `webhook.test:<subscriptionId>:<nonce>`.
   */
  idempotencyKey: string;
  /**
   * The profile block to re-fetch; null for a test event.
   */
  block: ('overview' | 'tradingStatus' | 'filingBehaviour' | 'riskOfFailure' | 'creditCapacity' | 'earlySignals') | null;
  data: {
    jurisdiction: ('GB' | 'IE') | null;
    companyNumber: string | null;
  };
}
export interface DeliveriesPage {
  items: DeliveryAttempt[];
  /**
   * Where the next page starts; null on the last page. Opaque: send it back unchanged.
   */
  nextCursor: string | null;
}
export interface DeliveryAttempt {
  deliveryId: DeliveryId;
  eventType: string;
  idempotencyKey: string;
  /**
   * The company the event names, as in the event's `data`; null for a test event.
   */
  jurisdiction: ('GB' | 'IE') | null;
  /**
   * As in the event's `data`; null for a test event.
   */
  companyNumber: string | null;
  /**
   * The event's `block`; null for a test event.
   */
  block: ('overview' | 'tradingStatus' | 'filingBehaviour' | 'riskOfFailure' | 'creditCapacity' | 'earlySignals') | null;
  attempt: number;
  attemptedAt: string;
  outcome: 'delivered' | 'failed' | 'dropped';
  /**
   * The status the endpoint answered; null when it did not answer.
   */
  httpStatus: number | null;
  /**
   * The start of the body the endpoint answered, as text: its first 2048 bytes decoded as UTF-8 (bytes that are not UTF-8 become U+FFFD). Null when the endpoint did not answer (see `error`), and for attempts logged before answers were kept.
   */
  responseBody: string | null;
  /**
   * Whether the answer went on past `responseBody`, or was cut short by the deadline or a reset; null when the endpoint did not answer.
   */
  responseBodyTruncated: boolean | null;
  /**
   * A failure without an HTTP status: `timeout`, `connection_refused`, `connection_reset`, `dns_failure`, `address_not_public`, `tls_error`, `url_not_allowed`, `connection_error`.
   */
  error: string | null;
  errorMessage: string | null;
  /**
   * How long the attempt took, from connecting to reading `responseBody` (or to the failure).
   */
  durationMs: number;
  /**
   * When the next attempt is due; null when none will follow.
   */
  nextAttemptAt: string | null;
}
/**
 * One early-warning signal.
 */
export interface EarlySignal {
  /**
   * Stable identifier, unique within the profile; kept across updates. Change events and their idempotency keys refer to it.
   */
  id: string;
  /**
   * What was seen, as a snake_case code (accounts_overdue, strike_off_proposed, insolvency, director_resigned, charge_registered, judgment_registered, …). New kinds may appear within v1.
   */
  kind: string;
  /**
   * active: the signal stands. superseded: a later event replaced it. expired: it no longer applies.
   */
  state: 'active' | 'superseded' | 'expired';
  /**
   * How much the signal should weigh on a credit decision.
   */
  severity: 'info' | 'warning' | 'critical';
  /**
   * One sentence for people.
   */
  summary: string;
  /**
   * When the signal was first seen.
   */
  detectedAt: string;
  /**
   * When the signal last changed state; equal to detectedAt until then.
   */
  updatedAt: string;
}
export interface EventsPage {
  items: ClientEvent[];
  /**
   * Where the next page starts; null on the last page. Opaque: send it back unchanged.
   */
  nextCursor: string | null;
}
/**
 * An amount as filed, in minor units of the filing's currency (pence for GBP); negative for a loss or net liabilities.
 */
export interface FiledAmount {
  /**
   * The amount in minor units; negative for a loss or net liabilities, as the filing signs it.
   */
  amountMinor: number;
  /**
   * ISO 4217 code of the filing's unit.
   */
  currency: string;
}
/**
 * The latest filed accounts Bureau has read for the company (GB: Companies House's Accounts Data Product). Only what the filing gives; a figure it does not give is absent, never estimated.
 */
export interface Financials {
  /**
   * First day of the period; null when the filing gives no duration for it.
   */
  periodStart: string | null;
  /**
   * Last day of the period: the balance-sheet date.
   */
  periodEnd: string;
  /**
   * The average number of employees in the period, as filed.
   */
  employees?: number;
  turnover?: FiledAmount;
  profitOrLoss?: FiledAmount;
  netAssets?: FiledAmount;
  totalAssetsLessCurrentLiabilities?: FiledAmount;
  currentAssets?: FiledAmount;
  creditorsDueWithinOneYear?: FiledAmount;
  cash?: FiledAmount;
  fixedAssets?: FiledAmount;
  /**
   * The kind of accounts, as the filing declares it; null when it does not.
   */
  accountsType: 'dormant' | 'micro-entity' | 'small' | 'full' | null;
  prior?: PeriodFinancials;
  group?: PeriodFinancials;
  /**
   * Where the figures were read.
   */
  provenance: {
    /**
     * Companies House's Accounts Data Product (the daily and monthly files of accounts filed electronically), or a local runtime's demo accounts (generated, never the register).
     */
    source: 'companies-house-accounts-data' | 'bureau-local-accounts';
    /**
     * The file the filing was read from, e.g. Accounts_Bulk_Data-2026-11-27.zip.
     */
    archive: string;
    /**
     * The filing's entry in that file, e.g. Prod223_3384_09355500_20221231.html.
     */
    entry: string;
    /**
     * The filing's format: inline XBRL (XHTML) or XBRL.
     */
    format: 'ixbrl' | 'xbrl';
    /**
     * For each figure given, `<period>.<figure>` (current.netAssets, prior.employees, group.turnover, …), the facts it was read from: the concept as the document names it and the context.
     */
    figures: {
      /**
       * @maxItems 10
       */
      [k: string]:
        | {
            concept: string;
            contextId: string;
          }[]
        | undefined;
    };
  };
}
/**
 * One period's figures as filed; a figure the filing does not give is absent, never estimated.
 */
export interface PeriodFinancials {
  /**
   * First day of the period; null when the filing gives no duration for it.
   */
  periodStart: string | null;
  /**
   * Last day of the period: the balance-sheet date.
   */
  periodEnd: string;
  /**
   * The average number of employees in the period, as filed.
   */
  employees?: number;
  turnover?: FiledAmount;
  profitOrLoss?: FiledAmount;
  netAssets?: FiledAmount;
  totalAssetsLessCurrentLiabilities?: FiledAmount;
  currentAssets?: FiledAmount;
  creditorsDueWithinOneYear?: FiledAmount;
  cash?: FiledAmount;
  fixedAssets?: FiledAmount;
}
/**
 * The API gateway's own answer, before any of Bureau's code runs: the cause is never shown.
 */
export interface GatewayError {
  message: string;
}
export interface JsonWebKeySet {
  keys: {
    kty: 'OKP';
    crv: 'Ed25519';
    x: string;
    kid: string;
    alg: 'EdDSA';
    use: 'sig';
  }[];
}
/**
 * An amount of money in minor units (pence, cent), so that no floating point is involved: 1250000 GBP is £12,500.00.
 */
export interface Money {
  /**
   * The amount in minor units.
   */
  amountMinor: number;
  /**
   * ISO 4217 currency: GBP for GB companies, EUR for IE companies.
   */
  currency: 'GBP' | 'EUR';
}
export interface NewSubscription {
  /**
   * One line of visible text: no control characters, lone surrogates, or bidirectional overrides and isolates.
   */
  name: string;
  /**
   * An https URL without credentials or fragment, on port 443 or 8443 (unless the operator allows others), whose host is or resolves only to public addresses.
   */
  url: string;
  filters?: SubscriptionFiltersInput | null;
}
/**
 * Which events the subscription receives. Each list is optional; a list present lets through only events whose value is in it, and all lists present must agree. The test event ignores filters.
 */
export interface SubscriptionFiltersInput {
  /**
   * @minItems 1
   */
  eventTypes?: ('profile.changed' | 'profile.early_signal.detected' | 'profile.early_signal.updated')[];
  /**
   * @minItems 1
   */
  blocks?: ('overview' | 'tradingStatus' | 'filingBehaviour' | 'riskOfFailure' | 'creditCapacity' | 'earlySignals')[];
  /**
   * @minItems 1
   */
  jurisdictions?: ('GB' | 'IE')[];
  /**
   * @minItems 1
   * @maxItems 100
   *
   * Items: `JURISDICTION:NUMBER`, the number in any spelling a profile lookup takes (`gb:1234567` is kept as `GB:01234567`).
   */
  companies?: string[];
}
/**
 * RFC 6749 §5.2.
 */
export interface OAuthError {
  error: 'invalid_request' | 'unsupported_grant_type' | 'invalid_client' | 'rate_limited';
  error_description: string;
}
/**
 * A risk score that a changed one replaced.
 */
export interface PreviousRisk {
  /**
   * The band the replaced score was in.
   */
  level: 'Low' | 'Moderate' | 'High' | 'Severe';
  /**
   * The replaced score.
   */
  score: number;
  /**
   * When the current score replaced it: the profile's updatedAt of that change.
   */
  replacedAt: string;
}
/**
 * An RFC 9457 problem document with a stable machine code in `error`: switch on `error`, never on `detail`, which is for people. New codes may be added within v1.
 */
export interface Problem {
  type: string;
  title: string;
  status: number;
  error: string;
  detail: string;
  /**
   * The query parameter or body field at fault, where there is one.
   */
  parameter?: string;
  /**
   * The body field at fault, where there is one.
   */
  field?: string;
  /**
   * For `invalid_url`: the rule the URL broke.
   */
  rule?: string;
}
/**
 * Who the company is: type, key dates, activity, and its size, complexity and maturity. A profile.changed event names this block when any of these change.
 */
export interface ProfileOverview {
  /**
   * Legal form. GB: the Companies House type code (ltd, plc, llp, …). IE: ltd, dac, plc, clg or ulc. 'other' when the register's type is not one of these.
   */
  companyType:
    | 'ltd'
    | 'plc'
    | 'llp'
    | 'limited-partnership'
    | 'private-limited-guarant-nsc'
    | 'private-limited-guarant-nsc-limited-exemption'
    | 'private-limited-shares-section-30-exemption'
    | 'private-unlimited'
    | 'private-unlimited-nsc'
    | 'uk-establishment'
    | 'oversea-company'
    | 'registered-overseas-entity'
    | 'royal-charter'
    | 'charitable-incorporated-organisation'
    | 'scottish-charitable-incorporated-organisation'
    | 'scottish-partnership'
    | 'investment-company-with-variable-capital'
    | 'industrial-and-provident-society'
    | 'registered-society-non-jurisdictional'
    | 'assurance-company'
    | 'eeig'
    | 'european-public-limited-liability-company-se'
    | 'unregistered-company'
    | 'protected-cell-company'
    | 'further-education-or-sixth-form-college-corporation'
    | 'old-public-company'
    | 'converted-or-closed'
    | 'other'
    | 'dac'
    | 'clg'
    | 'ulc';
  /**
   * A register subtype such as community-interest-company or private-fund-limited-partnership; null when none.
   */
  companySubtype: string | null;
  /**
   * Date of incorporation; for entities registered rather than incorporated (overseas entities), the date of registration. Null when the register gives none.
   */
  incorporatedOn: string | null;
  /**
   * Date of dissolution; null while the company exists.
   */
  dissolvedOn: string | null;
  /**
   * Nature of business. GB: UK SIC 2007 codes (5 digits). IE: NACE Rev. 2 codes (4 digits). May be empty.
   *
   * @maxItems 20
   */
  sicCodes: string[];
  /**
   * The registered office address on one line; null when the register gives none.
   */
  registeredOffice: string | null;
  /**
   * Size band by the statutory test (Companies Act 2006 ss. 382–384 and 465–467, thresholds as amended from 6 April 2025): the smallest band two of whose limits (turnover, balance-sheet total, average employees) the latest filed figures are within. Where the figures cannot tell, from the kind of accounts the filing declares; with no figures, from the register's category of the latest accounts; null when none of these tells (full or group accounts say nothing of size). The overview's provenance names the basis (derived.overview.sizeBasis).
   */
  sizeBand: 'micro' | 'small' | 'medium' | 'large' | null;
  /**
   * How complex the company's structure and activity are to assess.
   */
  complexity: 'simple' | 'moderate' | 'complex';
  /**
   * Age band: new under 1 year, young 1 to 3 years, established 3 to 10 years, mature 10 years or more.
   */
  maturity: 'new' | 'young' | 'established' | 'mature';
  /**
   * Band of the average number of employees the latest filed accounts report; null when they report none.
   */
  employeesBand: '0-9' | '10-49' | '50-249' | '250+' | null;
  provenance?: Provenance;
  /**
   * Former names, most recent first, as the register lists them; search finds a company by them. Present when the register gives them.
   *
   * @maxItems 20
   */
  previousNames?: {
    /**
     * The former name, as the register spells it.
     */
    name: string;
    /**
     * Date the company stopped using this name (the register's date of change of name).
     */
    changedOn: string | null;
  }[];
  financials?: Financials;
}
/**
 * Where a block's values come from, on profiles whose dataSource is 'register': the register file, the snapshot date, the rule (docs/profile.md states each in full) and the register facts the rule read. A block whose derived values do not change keeps its provenance, asOf included, from the snapshot that first gave them.
 */
export interface Provenance {
  /**
   * The register file: Companies House's Free Company Data Product (BasicCompanyData, monthly) or the CRO companies open dataset; or the live feed whose event last changed the block's facts: the Companies House Streaming API, or a local runtime's own register streams (demo activity and replayed recordings, never the register).
   */
  source: 'companies-house-basic-company-data' | 'cro-companies' | 'companies-house-streaming-api' | 'bureau-local-stream';
  /**
   * Date of the snapshot the block's current values were derived from.
   */
  asOf: string;
  /**
   * The rule that derived the values, by its id (e.g. register-filing-v1); docs/profile.md states every rule in full. A rule that changes gets a new id.
   */
  rule: string;
  /**
   * The facts the rule read, by the register's column name as published; names starting 'snapshots.' are facts Bureau keeps from the earlier snapshots it read, names starting 'derived.' values of other blocks the rule used. Null when the register left the field empty.
   */
  facts: {
    [k: string]: string | null | undefined;
  };
}
/**
 * Whether the company is trading. A profile.changed event names this block when the status changes.
 */
export interface ProfileTradingStatus {
  /**
   * The status as a stable code.
   */
  status:
    | 'active'
    | 'dormant'
    | 'liquidation'
    | 'administration'
    | 'receivership'
    | 'voluntary_arrangement'
    | 'insolvency_proceedings'
    | 'dissolved'
    | 'ceased'
    | 'closed'
    | 'converted'
    | 'removed'
    | 'other';
  /**
   * The register's own label, e.g. "Active - Proposal to Strike off".
   */
  registerStatus: string;
  /**
   * Date the current status began, when known.
   */
  since: string | null;
  provenance?: Provenance;
}
/**
 * How the company keeps up with its statutory filings. A profile.changed event names this block when any of these change.
 */
export interface ProfileFilingBehaviour {
  /**
   * consistent: every filing on time; mostly_consistent: one late filing in five years; inconsistent: several; no_history: no accounts have fallen due yet.
   */
  consistency: 'consistent' | 'mostly_consistent' | 'inconsistent' | 'no_history';
  /**
   * Date the latest accounts were delivered; null when none have been or, on register profiles, until a snapshot shows new accounts (the date is then that snapshot's: they were delivered since the one before).
   */
  lastAccountsFiledOn: string | null;
  /**
   * Date made up to of the latest confirmation statement (GB) or annual return (IE); null when none has been delivered.
   */
  lastConfirmationStatementOn: string | null;
  /**
   * Deadline of the next accounts, or of the overdue ones; null when the company has ended.
   */
  nextAccountsDueOn: string | null;
  /**
   * True when accounts are past their deadline and not delivered.
   */
  accountsOverdue: boolean;
  /**
   * True when the confirmation statement (GB) or annual return (IE) is past its deadline and not delivered.
   */
  confirmationStatementOverdue: boolean;
  /**
   * Number of filings delivered after their deadline in the last five years.
   */
  lateFilingsLast5Years: number;
  provenance?: Provenance;
  /**
   * The date the latest accounts were made up to (the end of the financial year they cover); null when none have been delivered. Present on register profiles.
   */
  lastAccountsMadeUpTo?: string | null;
}
/**
 * Likelihood that the company fails (insolvency or closure) within the next 12 months. A profile.changed event names this block when it changes.
 */
export interface ProfileRiskOfFailure {
  /**
   * Band of the score: Low 0-29, Moderate 30-54, High 55-84, Severe 85-100.
   */
  level: 'Low' | 'Moderate' | 'High' | 'Severe';
  /**
   * 0 (no risk seen) to 100 (failed or failure imminent).
   */
  score: number;
  /**
   * Date of the assessment.
   */
  assessedOn: string;
  /**
   * The main reasons for the score, most important first, in plain words.
   *
   * @maxItems 20
   */
  drivers: string[];
  /**
   * The score this one replaced when the score last changed, and when: a trend reads the two. Always present in the API's answers, null until the score first changes while Bureau holds the company. Kept by Bureau from its own record of the profile: an import need not state it, and a value an import states is ignored.
   */
  previous?: PreviousRisk | null;
  provenance?: Provenance;
}
/**
 * How much credit the company can be given, judged from its latest filed accounts' figures and its risk level (docs/profile.md, bureau-credit-model-v2). Without figures there is no limit: both limits are null and reason says why. A profile.changed event names this block when either limit changes.
 */
export interface ProfileCreditCapacity {
  /**
   * The most credit recommended in total, across all suppliers' terms with this company at one time; null when there are no filed figures to judge by (reason says why).
   */
  creditLimit: Money | null;
  /**
   * The most recommended for one supplier's open trade credit; never above creditLimit; null when creditLimit is.
   */
  tradeLimit: Money | null;
  /**
   * Why there is no limit; present exactly when the limits are null.
   */
  reason?: {
    /**
     * no_filed_accounts: Bureau holds no filed figures to judge by (for every Irish company: the CRO publishes none); dormant: the company does not trade; ended: dissolved, closed or removed; figures_in_other_currency: the accounts are filed in a currency other than pounds or euros.
     */
    code: 'no_filed_accounts' | 'dormant' | 'ended' | 'figures_in_other_currency';
    /**
     * The reason in words.
     */
    message: string;
  };
  /**
   * How the limit was reached (or why there is none), in words: the figures it was built from, any cap, and the risk factor.
   *
   * @maxItems 12
   */
  drivers?: string[];
  /**
   * Date of the assessment.
   */
  assessedOn: string;
  provenance?: Provenance;
}
/**
 * Early-warning signals, in the order detected. A new id raises profile.early_signal.detected; a state change of an existing id raises profile.early_signal.updated.
 */
export interface ProfileEarlySignals {
  /**
   * Every signal, whatever its state.
   *
   * @maxItems 200
   */
  signals: EarlySignal[];
  provenance?: Provenance;
}
export interface Recovery {
  since: string;
  queued: number;
  /**
   * Where the next page starts; null on the last page. Opaque: send it back unchanged.
   */
  nextCursor: string | null;
}
export interface RecoveryRequest {
  /**
   * RFC 3339 with its offset, within the last 14 days, not in the future.
   */
  since: string;
  /**
   * The `nextCursor` of the previous call.
   */
  cursor?: string;
}
export interface RetryQueued {
  deliveryId: DeliveryId;
  status: 'queued';
}
export interface RotatedSubscription {
  id: string;
  name: string;
  url: string;
  status: 'ACTIVE' | 'DISABLED';
  createdAt: string;
  updatedAt: string;
  /**
   * Why the service disabled it: the endpoint answered 410, or nothing was delivered for days.
   */
  disabledReason: string | null;
  /**
   * The first failed attempt since the last success.
   */
  failingSince: string | null;
  /**
   * null: every event of the companies the client watches.
   */
  filters: SubscriptionFilters | null;
  /**
   * A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes.
   */
  signingSecret: string;
  /**
   * Until then the previous secret signs beside the new one.
   */
  previousSigningSecretExpiresAt: string;
}
/**
 * Which events the subscription receives. Each list is optional; a list present lets through only events whose value is in it, and all lists present must agree. The test event ignores filters.
 */
export interface SubscriptionFilters {
  /**
   * @minItems 1
   */
  eventTypes?: ('profile.changed' | 'profile.early_signal.detected' | 'profile.early_signal.updated')[];
  /**
   * @minItems 1
   */
  blocks?: ('overview' | 'tradingStatus' | 'filingBehaviour' | 'riskOfFailure' | 'creditCapacity' | 'earlySignals')[];
  /**
   * @minItems 1
   */
  jurisdictions?: ('GB' | 'IE')[];
  /**
   * @minItems 1
   * @maxItems 100
   *
   * Items: `JURISDICTION:NUMBER`, the number in canonical form (`GB:01234567`, `IE:123456`).
   */
  companies?: string[];
}
/**
 * Why the item matched. New `type` values may be added within v1.
 */
export interface SearchMatch {
  type: 'company_number' | 'exact' | 'name_prefix' | 'word_prefix' | 'fuzzy';
  /**
   * The name words the query words matched.
   */
  on?: string[];
  /**
   * For fuzzy matches: which query words were corrected to which.
   */
  corrected?: {
    from: string;
    to: string;
  }[];
}
export interface SearchPage {
  items: SearchResult[];
  /**
   * Where the next page starts; null on the last page. Opaque: send it back unchanged.
   */
  nextCursor: string | null;
  /**
   * The query with its misspelt words corrected, when the page holds corrected matches.
   */
  suggestion?: string;
}
export interface SearchResult {
  companyNumber: string;
  jurisdiction: 'GB' | 'IE';
  name: string;
  status: string;
  type: string;
  incorporatedOn: string | null;
  match: SearchMatch;
  /**
   * The former name the company was found by; absent when its current name matched.
   */
  matchedPreviousName?: string;
}
/**
 * A subscription in a listing: without its signing secret.
 */
export interface Subscription {
  id: string;
  name: string;
  url: string;
  status: 'ACTIVE' | 'DISABLED';
  createdAt: string;
  updatedAt: string;
  /**
   * Why the service disabled it: the endpoint answered 410, or nothing was delivered for days.
   */
  disabledReason: string | null;
  /**
   * The first failed attempt since the last success.
   */
  failingSince: string | null;
  /**
   * null: every event of the companies the client watches.
   */
  filters: SubscriptionFilters | null;
}
export interface SubscriptionChange {
  /**
   * One line of visible text: no control characters, lone surrogates, or bidirectional overrides and isolates.
   */
  name?: string;
  /**
   * An https URL without credentials or fragment, on port 443 or 8443 (unless the operator allows others), whose host is or resolves only to public addresses.
   */
  url?: string;
  /**
   * ACTIVE again clears `disabledReason` and `failingSince`.
   */
  status?: 'ACTIVE' | 'DISABLED';
  /**
   * null removes them.
   */
  filters?: SubscriptionFiltersInput | null;
}
/**
 * A subscription as an answer about it alone shows it: with its signing secret.
 */
export interface SubscriptionWithSecret {
  id: string;
  name: string;
  url: string;
  status: 'ACTIVE' | 'DISABLED';
  createdAt: string;
  updatedAt: string;
  /**
   * Why the service disabled it: the endpoint answered 410, or nothing was delivered for days.
   */
  disabledReason: string | null;
  /**
   * The first failed attempt since the last success.
   */
  failingSince: string | null;
  /**
   * null: every event of the companies the client watches.
   */
  filters: SubscriptionFilters | null;
  /**
   * A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes.
   */
  signingSecret: string;
}
export interface SubscriptionsPage {
  items: Subscription[];
  /**
   * Where the next page starts; null on the last page. Opaque: send it back unchanged.
   */
  nextCursor: string | null;
}
export interface TestDelivery {
  deliveryId: DeliveryId;
  event: WebhookEvent;
}
/**
 * The body of every webhook delivery. It carries no values: re-fetch the profile and read the block named.
 */
export interface WebhookEvent {
  type: 'profile.changed' | 'profile.early_signal.detected' | 'profile.early_signal.updated' | 'webhook.test';
  apiVersion: 'v1';
  /**
   * The profile's `updatedAt` after the change; for a test event, when it was requested.
   */
  occurredAt: string;
  /**
   * Derived from the change alone: `profile.changed:<jurisdiction>:<number>:<block>:v<version>`, `early_signal:<jurisdiction>:<number>:<signalId>:<state>`, or `webhook.test:<subscriptionId>:<nonce>`.
   */
  idempotencyKey: string;
  /**
   * The profile block to re-fetch; null for a test event.
   */
  block: ('overview' | 'tradingStatus' | 'filingBehaviour' | 'riskOfFailure' | 'creditCapacity' | 'earlySignals') | null;
  data: {
    jurisdiction: ('GB' | 'IE') | null;
    companyNumber: string | null;
  };
}
export interface Token {
  /**
   * An RFC 9068 JWT signed with Ed25519; treat it as opaque.
   */
  access_token: string;
  token_type: 'Bearer';
  expires_in: 3600;
}
export interface TokenRequest {
  grant_type: 'client_credentials';
  /**
   * Required unless sent in HTTP Basic.
   */
  client_id?: string;
  /**
   * Required unless sent in HTTP Basic; never both.
   */
  client_secret?: string;
}
export interface Watch {
  jurisdiction: 'GB' | 'IE';
  companyNumber: string;
  watchedSince: string;
  /**
   * The last fetch, kept to the hour: a fetch within an hour of it does not move it.
   */
  lastFetchedAt: string;
}
export interface WatchesPage {
  items: Watch[];
  /**
   * Where the next page starts; null on the last page. Opaque: send it back unchanged.
   */
  nextCursor: string | null;
}
