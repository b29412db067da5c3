import { BUILT_IN_CONNECTORS, type Connectors } from './connectors.js';

/** The embedded memory DB (SimpleVectorDb in the data folder): the only type without a factory. */
export const EMBEDDED_MEMORY_DB = 'simple';

/**
 * The memory DB types a configured `memoryDb.type` names, in order: one type (`postgres`) or
 * several separated by commas (`postgres,qdrant`), as Kernel Memory allows: records are written
 * to every one of them and searches read the first. Returns the reason instead when an entry
 * is empty, unknown or repeated.
 *
 * ```ts
 * memoryDbTypes('postgres, qdrant'); // { types: ['postgres', 'qdrant'] }
 * memoryDbTypes('postgres,,qdrant'); // { error: 'memoryDb.type has an empty entry ...' }
 * ```
 */
export function memoryDbTypes(type: unknown, connectors: Connectors = BUILT_IN_CONNECTORS): { types: string[] } | { error: string } {
  const known = [EMBEDDED_MEMORY_DB, ...connectors.memoryDbs.map((f) => f.type)];
  const expected = `one of ${known.map((t) => `"${t}"`).join(', ')}, or several separated by commas (records go to all, searches read the first)`;
  if (typeof type !== 'string' || type.trim() === '')
    return { error: `memoryDb.type (KM_MEMORY_DB) must be ${expected}, got ${JSON.stringify(type)}` };
  const types = type.split(',').map((t) => t.trim());
  if (types.some((t) => t === ''))
    return { error: `memoryDb.type (KM_MEMORY_DB) has an empty entry in ${JSON.stringify(type)}: it must be ${expected}` };
  const unknown = types.find((t) => !known.includes(t));
  if (unknown !== undefined) return { error: `memoryDb.type (KM_MEMORY_DB) must be ${expected}, got ${JSON.stringify(unknown)}` };
  const repeated = types.find((t, i) => types.indexOf(t) !== i);
  if (repeated !== undefined) return { error: `memoryDb.type (KM_MEMORY_DB) names "${repeated}" twice in ${JSON.stringify(type)}` };
  return { types };
}
