import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Checks the access key of a request against the configured keys (two, for rotation).
 * Keys are compared as SHA-256 digests with `timingSafeEqual`, so neither the content nor the
 * length of a key leaks through response times; every key is checked on every request.
 */
export class AccessKeys {
  private readonly digests: Buffer[];

  constructor(keys: readonly string[]) {
    this.digests = keys.filter((k) => k.length > 0).map(digest);
  }

  /** `missing` without a value, `wrong` when it matches no key, `ok` otherwise. */
  check(value: string | string[] | undefined): 'ok' | 'missing' | 'wrong' {
    const given = Array.isArray(value) ? value[0] : value;
    if (given === undefined || given.length === 0) return 'missing';
    const candidate = digest(given);
    let match = false;
    for (const key of this.digests) match = timingSafeEqual(candidate, key) || match;
    return match ? 'ok' : 'wrong';
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
