import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { InvalidCompanyNumberError, parseCompanyNumber } from './numbers';
import type { ProfileContent } from './profile';
import profileSchema from './schema/profile.v1.schema.json' with { type: 'json' };

/**
 * Validates profile documents against shared/companies/schema/profile.v1.schema.json, the one
 * definition of the profile's shape, plus the rules JSON Schema cannot say (canonical company
 * number, unique signal ids, trade limit within the credit limit).
 */

export type ProfileValidation = { ok: true; profile: ProfileContent } | { ok: false; errors: string[] };

/** The schema as it applies to content: version and updatedAt may be present, but the store assigns them. */
const { $id: _id, ...schemaWithoutId } = profileSchema;
const contentSchema = {
  ...schemaWithoutId,
  required: profileSchema.required.filter((field) => field !== 'version' && field !== 'updatedAt'),
};

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats.default(ajv, ['date', 'date-time']);
const validateContent = ajv.compile(contentSchema);

/** A schema error as one sentence that names the field. */
function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'profile' : error.instancePath.slice(1).replace(/\//g, '.');
  switch (error.keyword) {
    case 'additionalProperties':
      return `${where}: unknown field "${(error.params as { additionalProperty: string }).additionalProperty}"`;
    case 'required':
      return `${where}: missing field "${(error.params as { missingProperty: string }).missingProperty}"`;
    case 'enum':
      return `${where}: must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((value) => JSON.stringify(value)).join(', ')}`;
    default:
      return `${where}: ${error.message ?? 'is invalid'}`;
  }
}

function businessRuleErrors(profile: ProfileContent): string[] {
  const errors: string[] = [];
  try {
    const canonical = parseCompanyNumber(profile.companyNumber, profile.jurisdiction).companyNumber;
    if (canonical !== profile.companyNumber) errors.push(`companyNumber: must be written in canonical form "${canonical}"`);
  } catch (error) {
    if (!(error instanceof InvalidCompanyNumberError)) throw error;
    errors.push(`companyNumber: ${error.message}`);
  }
  const seen = new Set<string>();
  for (const [index, signal] of profile.earlySignals.signals.entries()) {
    if (seen.has(signal.id)) errors.push(`earlySignals.signals.${index}.id: "${signal.id}" is used by an earlier signal`);
    seen.add(signal.id);
    if (signal.updatedAt < signal.detectedAt) errors.push(`earlySignals.signals.${index}.updatedAt: must not be before detectedAt`);
  }
  const { creditLimit, tradeLimit, reason } = profile.creditCapacity;
  if (!creditLimit || !tradeLimit) {
    if (creditLimit || tradeLimit) errors.push('creditCapacity: creditLimit and tradeLimit must both be given or both be null');
    else if (!reason) errors.push('creditCapacity.reason: required when there is no limit');
  } else if (creditLimit.currency !== tradeLimit.currency)
    errors.push('creditCapacity: creditLimit and tradeLimit must be in the same currency');
  else if (tradeLimit.amountMinor > creditLimit.amountMinor) errors.push('creditCapacity.tradeLimit: must not exceed creditLimit');
  return errors;
}

/**
 * Checks that a value is a profile document (as the API returns it, or without version and
 * updatedAt) and returns its content, without version and updatedAt.
 */
export function validateProfileContent(value: unknown): ProfileValidation {
  if (!validateContent(value)) {
    // An "if" failure only repeats the error of the "then" branch it guards.
    return { ok: false, errors: (validateContent.errors ?? []).filter((error) => error.keyword !== 'if').map(describe) };
  }
  const { version: _version, updatedAt: _updatedAt, ...profile } = value as ProfileContent & { version?: number; updatedAt?: string };
  const errors = businessRuleErrors(profile);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, profile };
}
