/**
 * Payload fields of a km point, named as Kernel Memory's Qdrant connector names them (`id`,
 * `tags`, `payload`), so collections written by either can be read by the other; `norm` is
 * km's own (see {@link QdrantMemoryDb}).
 */
export const PayloadFields = {
  /** The km record id, exactly as given. */
  id: 'id',
  /** `key:value` strings, with a keyword payload index. */
  tags: 'tags',
  /** The record's JSON payload. */
  payload: 'payload',
  /** The vector's length before Qdrant normalised it for cosine, to give the original back. */
  norm: 'norm',
} as const;
