import { createHash } from 'node:crypto';
import { DerivedFileNames, legacyEmbeddingFileName } from '../pipeline/internal-file-names.js';

/** Content of a `.text_embedding` file: the vector of one partition and what made it. */
export interface EmbeddingFile {
  generator: string;
  vector_size: number;
  /** SHA-256 of the partition text the vector was computed from. */
  source_sha256: string;
  timestamp: string;
  vector: number[];
}

/** Longest generator slug in an embedding file name, so derived names fit `DERIVED_FILE_SUFFIX_BYTES`. */
export const MAX_GENERATOR_SLUG_BYTES = 57;

/**
 * File name of a partition's embedding by a given generator (see `DerivedFileNames.embedding`).
 * A slug longer than {@link MAX_GENERATOR_SLUG_BYTES} (a long model or deployment name) is cut
 * and ends with a hash of the whole name, so two long names still get different files.
 */
export function embeddingFileName(partitionName: string, generator: string): string {
  return DerivedFileNames.embedding(partitionName, generatorSlug(generator));
}

/**
 * The name an earlier version gave the embedding of a partition with a legacy name (no `..km.`
 * prefix), for reusing the vector it stored; undefined for a partition with a current name.
 */
export function legacyEmbeddingFileNameOf(partitionName: string, generator: string): string | undefined {
  return legacyEmbeddingFileName(partitionName, generatorSlug(generator));
}

function generatorSlug(generator: string): string {
  let slug =
    generator
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'default';
  if (slug.length > MAX_GENERATOR_SLUG_BYTES) {
    const hash = createHash('sha256').update(generator).digest('hex').slice(0, 12);
    slug = `${slug.slice(0, MAX_GENERATOR_SLUG_BYTES - hash.length - 1)}-${hash}`;
  }
  return slug;
}

/** Parses an embedding file; undefined when it is not one. */
export function parseEmbeddingFile(data: Buffer | string): EmbeddingFile | undefined {
  try {
    const parsed = JSON.parse(data.toString()) as Partial<EmbeddingFile>;
    if (typeof parsed.generator !== 'string' || !Array.isArray(parsed.vector) || typeof parsed.source_sha256 !== 'string') return undefined;
    return parsed as EmbeddingFile;
  } catch {
    return undefined;
  }
}
