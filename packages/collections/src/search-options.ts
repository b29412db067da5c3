import { InvalidInputError, type RecordDefinition } from '@km/core';
import type { ResolvedDataProperty, ResolvedVectorProperty } from '@km/core/connector';

/** Default `top` of a search. */
export const DEFAULT_SEARCH_TOP = 3;
/** Largest `top` of a search. */
export const MAX_SEARCH_TOP = 1000;
/** Largest `skip` of a search. */
export const MAX_SEARCH_SKIP = 10000;

/** Search options with their defaults applied. */
export interface CheckedSearchOptions {
  readonly vectorProperty: ResolvedVectorProperty;
  readonly top: number;
  readonly skip: number;
  readonly minScore: number | undefined;
  readonly includeVectors: boolean;
}

/**
 * Checks the paging, score and vector options of a search and applies the defaults: `top` an
 * integer from 1 to 1000 (3), `skip` an integer from 0 to 10000 (0), `minScore` finite,
 * `vectorProperty` a vector of the definition (required when it has several). Throws
 * `invalid_argument`.
 *
 * ```ts
 * checkSearchOptions(Hotel, { top: 5 }); // { vectorProperty: descriptionEmbedding, top: 5, skip: 0, ... }
 * ```
 */
export function checkSearchOptions(
  definition: RecordDefinition<unknown>,
  options: { top?: unknown; skip?: unknown; minScore?: unknown; vectorProperty?: unknown; includeVectors?: unknown },
): CheckedSearchOptions {
  const paging = checkPaging(options);
  return { vectorProperty: searchedVector(definition, options.vectorProperty), ...paging };
}

/** `top`, `skip`, `minScore` and `includeVectors` of a search, checked, with their defaults. */
function checkPaging(options: {
  top?: unknown;
  skip?: unknown;
  minScore?: unknown;
  includeVectors?: unknown;
}): Omit<CheckedSearchOptions, 'vectorProperty'> {
  const top = options.top ?? DEFAULT_SEARCH_TOP;
  if (typeof top !== 'number' || !Number.isInteger(top) || top < 1 || top > MAX_SEARCH_TOP) {
    throw invalid(`top must be an integer from 1 to ${MAX_SEARCH_TOP}, got ${String(top)}`);
  }
  const skip = options.skip ?? 0;
  if (typeof skip !== 'number' || !Number.isInteger(skip) || skip < 0 || skip > MAX_SEARCH_SKIP) {
    throw invalid(`skip must be an integer from 0 to ${MAX_SEARCH_SKIP}, got ${String(skip)}`);
  }
  const { minScore } = options;
  if (minScore !== undefined && (typeof minScore !== 'number' || !Number.isFinite(minScore))) {
    throw invalid(`minScore must be a finite number, got ${String(minScore)}`);
  }
  return { top, skip, minScore, includeVectors: options.includeVectors === true };
}

/**
 * Checks the options of a lexical search like {@link checkSearchOptions} (`top`, `skip`,
 * `minScore`) and resolves the searched property: a `fullText` string property of the
 * definition, named by `property` (required when it has several). Throws `invalid_argument`.
 */
export function checkLexicalOptions(
  definition: RecordDefinition<unknown>,
  options: { top?: unknown; skip?: unknown; minScore?: unknown; property?: unknown; includeVectors?: unknown },
): Omit<CheckedSearchOptions, 'vectorProperty'> & { readonly property: ResolvedDataProperty } {
  const { vectorProperty: _, ...paging } = checkSearchOptions(
    { ...definition, vectors: [definition.vectors[0]!] },
    { ...options, vectorProperty: undefined },
  );
  const texts = definition.data.filter((p) => p.fullText && p.type === 'string');
  const names = texts.map((p) => p.name).join(', ');
  let property: ResolvedDataProperty | undefined;
  if (options.property === undefined) {
    if (texts.length !== 1) {
      throw invalid(
        texts.length === 0
          ? 'the definition has no fullText string property to search'
          : `the definition has several fullText properties (${names}); say which to search with property`,
      );
    }
    property = texts[0];
  } else {
    property = texts.find((p) => p.name === options.property);
    if (!property)
      throw invalid(`property ${String(options.property)} is not a fullText string property of the definition; those: ${names || 'none'}`);
  }
  return { ...paging, property: property! };
}

function searchedVector(definition: RecordDefinition<unknown>, name: unknown): ResolvedVectorProperty {
  const names = definition.vectors.map((v) => v.name).join(', ');
  if (name === undefined) {
    if (definition.vectors.length === 1) return definition.vectors[0]!;
    throw invalid(`the definition has several vectors (${names}); say which to search with vectorProperty`);
  }
  const vector = definition.vectors.find((v) => v.name === name);
  if (!vector) throw invalid(`vectorProperty ${String(name)} is not a vector of the definition; its vectors: ${names}`);
  return vector;
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('invalid_argument', message);
}
