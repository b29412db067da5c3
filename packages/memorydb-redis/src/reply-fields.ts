/**
 * Reads key/value replies whatever the protocol gave: a RESP2 flat array `[k1, v1, k2, v2]`
 * (a lone trailing flag such as `CASESENSITIVE` is ignored), a RESP3 map (a `Map` or, with
 * node-redis's default type mapping, an object), or an object a node-redis transform built.
 */
export function replyFields(reply: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (Array.isArray(reply)) {
    for (let i = 0; i + 1 < reply.length; i += 2) out.set(String(reply[i]), reply[i + 1]);
  } else if (reply instanceof Map) {
    for (const [key, value] of reply) out.set(String(key), value);
  } else if (reply !== null && typeof reply === 'object' && !Buffer.isBuffer(reply)) {
    for (const [key, value] of Object.entries(reply)) out.set(key, value);
  }
  return out;
}

/** A reply value as a finite number, else undefined. */
export function replyNumber(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' || Buffer.isBuffer(value) ? Number(value.toString()) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** A reply value as a list (RESP2 and RESP3 arrays, RESP3 sets). */
export function replyList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value instanceof Set) return [...value];
  return [];
}
