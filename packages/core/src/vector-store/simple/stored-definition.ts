import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KmError } from '../../errors/km-error.js';
import type { RecordDefinition, ResolvedDataProperty, ResolvedKeyProperty, ResolvedVectorProperty } from '../record-definition-types.js';
import { writeFileAtomic } from './collection-folder.js';

/** The file in a collection folder that holds its definition. */
export const DEFINITION_FILE = 'definition.json';

/** A resolved record definition without its embedding generator: what `definition.json` holds. */
export interface StoredDefinition {
  readonly format: 1;
  readonly key: ResolvedKeyProperty;
  readonly data: readonly ResolvedDataProperty[];
  readonly vectors: readonly ResolvedVectorProperty[];
}

/** The storable part of a definition (the generator is left out). */
export function toStoredDefinition(definition: RecordDefinition): StoredDefinition {
  return { format: 1, key: definition.key, data: definition.data, vectors: definition.vectors };
}

/** Writes a collection's definition atomically (see {@link writeFileAtomic}). */
export async function writeDefinition(folder: string, definition: StoredDefinition): Promise<void> {
  await writeFileAtomic(join(folder, DEFINITION_FILE), `${JSON.stringify(definition, null, 2)}\n`);
}

/** Reads a collection's definition; undefined when the folder holds none (no collection, or one whose creation never finished). */
export async function readDefinition(folder: string, connector: string): Promise<StoredDefinition | undefined> {
  const path = join(folder, DEFINITION_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed: Partial<StoredDefinition>;
  try {
    parsed = JSON.parse(text) as Partial<StoredDefinition>;
  } catch (error) {
    throw new KmError('storage_corrupt', `${path} is not JSON`, { connector, cause: error });
  }
  if (parsed.format !== 1 || !parsed.key || !Array.isArray(parsed.data) || !Array.isArray(parsed.vectors)) {
    throw new KmError('storage_corrupt', `${path} is not a record definition of format 1`, { connector });
  }
  return parsed as StoredDefinition;
}

/**
 * The first difference between a stored definition and a requested one that changes what is
 * stored (key storage name or type; the data properties, their storage names and types; the
 * vectors, their dimensions and distances), in words; undefined when they agree. Names,
 * `filterable`, `fullText`, `optional` and `embed` may differ.
 *
 * ```ts
 * definitionDifference(stored, requested); // 'vector "embedding" has 384 dimensions, the definition asks for 512'
 * ```
 */
export function definitionDifference(stored: StoredDefinition, requested: RecordDefinition): string | undefined {
  if (stored.key.storageName !== requested.key.storageName) {
    return `the key is stored as "${stored.key.storageName}", the definition asks for "${requested.key.storageName}"`;
  }
  if (stored.key.type !== requested.key.type) {
    return `the key "${stored.key.storageName}" has type ${stored.key.type}, the definition asks for ${requested.key.type}`;
  }
  const data = new Map(stored.data.map((p) => [p.storageName, p]));
  for (const property of requested.data) {
    const existing = data.get(property.storageName);
    if (!existing) return `data property "${property.storageName}" is not in the collection`;
    if (existing.type !== property.type) {
      return `data property "${property.storageName}" has type ${existing.type}, the definition asks for ${property.type}`;
    }
    data.delete(property.storageName);
  }
  for (const missing of data.keys()) return `data property "${missing}" of the collection is not in the definition`;
  const vectors = new Map(stored.vectors.map((p) => [p.storageName, p]));
  for (const property of requested.vectors) {
    const existing = vectors.get(property.storageName);
    if (!existing) return `vector "${property.storageName}" is not in the collection`;
    if (existing.dimensions !== property.dimensions) {
      return `vector "${property.storageName}" has ${existing.dimensions} dimensions, the definition asks for ${property.dimensions}`;
    }
    if (existing.distance !== property.distance) {
      return `vector "${property.storageName}" uses distance ${existing.distance}, the definition asks for ${property.distance}`;
    }
    vectors.delete(property.storageName);
  }
  for (const missing of vectors.keys()) return `vector "${missing}" of the collection is not in the definition`;
  return undefined;
}
