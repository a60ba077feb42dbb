import { lookup } from 'node:dns/promises';
import type { ResolvedAddress, Resolver } from './types';

/**
 * Default resolver: the system resolver (same answers as the rest of the process, /etc/hosts
 * included), all addresses, so safeFetch can refuse a name if ANY of them is internal.
 */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a): ResolvedAddress => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};
