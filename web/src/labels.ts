/** What the app calls the profile's blocks and the registers, everywhere it offers or shows them. */
export const BLOCK_LABELS = [
  ['overview', 'Overview'],
  ['tradingStatus', 'Trading status'],
  ['filingBehaviour', 'Filing behaviour'],
  ['riskOfFailure', 'Risk of failure'],
  ['creditCapacity', 'Credit capacity'],
  ['earlySignals', 'Early signals'],
] as const;

export const REGISTER_LABELS = [
  ['GB', 'Great Britain'],
  ['IE', 'Ireland'],
] as const;
