import type { Overview, ProfileContent } from '../companies/profile';

/** What a register file says about one company: the facts every profile block is derived from. */
export type RegisterFacts = Pick<ProfileContent, 'jurisdiction' | 'companyNumber' | 'name' | 'tradingStatus'> &
  Pick<Overview, 'companyType' | 'companySubtype' | 'incorporatedOn' | 'dissolvedOn' | 'sicCodes' | 'registeredOffice'>;
