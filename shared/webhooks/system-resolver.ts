import { lookup } from 'node:dns/promises';
import type { HostResolver } from './endpoint-url';

/**
 * Every address the system resolver gives for a name. A name it cannot resolve, for whatever reason,
 * has no address: the URL is refused, never accepted unchecked.
 */
export const systemResolver: HostResolver = async (hostname) => {
  try {
    return (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    return [];
  }
};
