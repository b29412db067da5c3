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

/**
 * Why a request without a key was refused: the header to send it in, and, when the key came in
 * `Authorization` while the service reads another header, that this is the mistake.
 */
export function missingKeyMessage(header: string, headers: Record<string, string | string[] | undefined>): string {
  const base = `the ${header} header with an access key is required`;
  if (header.toLowerCase() !== 'authorization' && headers.authorization !== undefined) {
    return `${base}: this service reads the key from ${header}, not from Authorization`;
  }
  return base;
}

/** Why a key was refused, and the two forms a key is accepted in. */
export function wrongKeyMessage(header: string): string {
  return `the access key in the ${header} header is not valid: send one of the service's keys (KM_ACCESS_KEY1 or KM_ACCESS_KEY2) as is, as Kernel Memory clients do, or as "Bearer <key>"`;
}
