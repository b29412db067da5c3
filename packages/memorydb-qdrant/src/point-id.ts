import { createHash } from 'node:crypto';

/** The namespace of km record ids in UUIDv5 (a fixed random UUID; changing it orphans every point). */
export const KM_POINT_ID_NAMESPACE = '5c2b9f43-7f0e-4c1a-9d2e-6a1b3c8d4e70';

/**
 * The Qdrant point id of a km record id: a name-based UUID of the id, so the same record always
 * lands on the same point and an upsert replaces it. Qdrant accepts only unsigned integers and
 * UUIDs as point ids; the km id itself is kept in the payload and returned exactly.
 */
export function pointIdOf(recordId: string): string {
  return uuidV5(KM_POINT_ID_NAMESPACE, recordId);
}

/** A version 5 (SHA-1, name-based) UUID of `name`'s UTF-8 bytes in `namespace` (RFC 9562 §5.5). */
export function uuidV5(namespace: string, name: string): string {
  const hex = namespace.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new TypeError(`not a UUID: ${namespace}`);
  const bytes = createHash('sha1').update(Buffer.from(hex, 'hex')).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const out = bytes.toString('hex');
  return `${out.slice(0, 8)}-${out.slice(8, 12)}-${out.slice(12, 16)}-${out.slice(16, 20)}-${out.slice(20)}`;
}
