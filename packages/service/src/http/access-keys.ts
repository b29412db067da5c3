import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Checks the access key of a request against the configured keys (two, for rotation).
 * Keys are compared as SHA-256 digests with `timingSafeEqual`, so neither the content nor the
 * length of a key leaks through response times; every key is checked on every request. The key
 * may be sent as is (Kernel Memory's way) or as `Bearer <key>`.
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
    // `Bearer <key>` as OAuth-minded clients send it is the key too; KM sends the key itself.
    const bearer = BEARER.exec(given)?.[1];
    const candidates = bearer ? [digest(given), digest(bearer)] : [digest(given)];
    let match = false;
    for (const candidate of candidates) for (const key of this.digests) match = timingSafeEqual(candidate, key) || match;
    return match ? 'ok' : 'wrong';
  }
}

const BEARER = /^bearer\s+(\S+)\s*$/i;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
