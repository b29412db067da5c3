import type { SearchField, SearchIndex } from '@azure/search-documents';
import { type DataPropertyType, type DistanceFunction, InvalidInputError, type RecordDefinition } from '@km/core';
import type { HnswSettings } from '../azure-ai-search-config.js';
import type { AzureIndexLayout } from './azure-index-layout.js';
import { METRICS } from './azure-vector-scores.js';

const CONNECTOR = 'azureaisearch';
/** The service's smallest and largest `dimensions` of a vector field. */
export const MIN_DIMENSIONS = 2;
export const MAX_DIMENSIONS = 4096;

/** The EDM type of each data property type. */
export const EDM_TYPES: Readonly<Record<DataPropertyType, SearchField['type']>> = {
  string: 'Edm.String',
  number: 'Edm.Double',
  integer: 'Edm.Int64',
  boolean: 'Edm.Boolean',
  date: 'Edm.DateTimeOffset',
  'string[]': 'Collection(Edm.String)',
  'number[]': 'Collection(Edm.Double)',
};

/** The vector profile of a distance function (`kmvs-cosine`…), over an HNSW configuration with its metric. */
export const profileOf = (distance: DistanceFunction): string => `kmvs-${distance}`;

/**
 * The index of a collection: the key an `Edm.String` key field (filterable and sortable, so
 * reads by filter page through it), each data property a field of its
 * EDM type (filterable when `filterable`, searchable when `fullText`), each vector a
 * `Collection(Edm.Single)` with the profile of its distance function (HNSW with the `cosine`,
 * `dotProduct` or `euclidean` metric and the `hnsw` settings given). Every field is retrievable
 * but the layout's `hiddenFields`; the layout's `keyTextField` follows the key.
 *
 * ```ts
 * await indexClient.createIndex(vectorIndexDefinition('kmvs-hotels', Hotel));
 * ```
 */
export function vectorIndexDefinition(
  name: string,
  definition: RecordDefinition,
  hnsw: HnswSettings = {},
  layout: AzureIndexLayout = {},
): SearchIndex {
  const distances = [...new Set(definition.vectors.map((v) => v.distance))];
  const hidden = new Set(layout.hiddenFields ?? []);
  const names = (d: DistanceFunction) =>
    d === 'cosine' && layout.cosineProfile ? layout.cosineProfile : { profile: profileOf(d), algorithm: `kmvs-hnsw-${d}` };
  return {
    name,
    fields: [
      { name: definition.key.storageName, type: 'Edm.String', key: true, filterable: true, sortable: true },
      ...(layout.keyTextField !== undefined ? [{ name: layout.keyTextField, type: 'Edm.String' as const }] : []),
      ...definition.data.map(
        (d): SearchField => ({
          name: d.storageName,
          type: EDM_TYPES[d.type],
          filterable: d.filterable,
          ...(d.fullText && (d.type === 'string' || d.type === 'string[]') ? { searchable: true } : {}),
          ...(hidden.has(d.storageName) ? { hidden: true } : {}),
        }),
      ),
      ...definition.vectors.map(
        (v): SearchField => ({
          name: v.storageName,
          type: 'Collection(Edm.Single)',
          searchable: true,
          vectorSearchDimensions: v.dimensions,
          vectorSearchProfileName: names(v.distance).profile,
        }),
      ),
    ],
    vectorSearch: {
      algorithms: distances.map((d) => ({
        name: names(d).algorithm,
        kind: 'hnsw' as const,
        parameters: {
          metric: METRICS[d],
          ...(hnsw.m !== undefined ? { m: hnsw.m } : {}),
          ...(hnsw.efConstruction !== undefined ? { efConstruction: hnsw.efConstruction } : {}),
          ...(hnsw.efSearch !== undefined ? { efSearch: hnsw.efSearch } : {}),
        },
      })),
      profiles: distances.map((d) => ({ name: names(d).profile, algorithmConfigurationName: names(d).algorithm })),
    },
  };
}

/** The dimensions of a vector field of an index definition, or undefined when it has no such vector field. */
export function vectorDimensionsOf(index: Pick<SearchIndex, 'fields'>, field: string): number | undefined {
  const found = index.fields.find((f) => f.name === field) as { vectorSearchDimensions?: number } | undefined;
  return typeof found?.vectorSearchDimensions === 'number' ? found.vectorSearchDimensions : undefined;
}

/** Refuses vectors the service cannot index (fewer than 2 dimensions). */
export function checkDimensions(definition: RecordDefinition): void {
  const small = definition.vectors.find((v) => v.dimensions < MIN_DIMENSIONS);
  if (small) {
    throw new InvalidInputError(
      'invalid_argument',
      `vector "${small.name}" has ${small.dimensions} dimension; Azure AI Search vector fields have at least ${MIN_DIMENSIONS}`,
      { connector: CONNECTOR },
    );
  }
}

/**
 * Checks that an existing index (made earlier, or your own) fits the definition: the key field
 * is the index's key, every vector a vector field of the same dimensions with a profile whose
 * metric is the distance's, every filterable property a filterable field. Throws
 * `invalid_argument` naming the first that does not.
 */
export function checkVectorIndex(index: SearchIndex, definition: RecordDefinition): void {
  const fields = new Map(index.fields.map((f) => [f.name, f as SearchField & Record<string, unknown>]));
  const refuse = (what: string) => {
    throw new InvalidInputError('invalid_argument', `Azure AI Search index "${index.name}" ${what}`, { connector: CONNECTOR });
  };
  if (fields.get(definition.key.storageName)?.key !== true) refuse(`has no key field "${definition.key.storageName}"`);
  const metricOfProfile = (profile: unknown) => {
    const found = index.vectorSearch?.profiles?.find((p) => p.name === profile);
    const algorithm = index.vectorSearch?.algorithms?.find((a) => a.name === found?.algorithmConfigurationName);
    return (algorithm as { parameters?: { metric?: string } } | undefined)?.parameters?.metric ?? 'cosine';
  };
  for (const vector of definition.vectors) {
    const field = fields.get(vector.storageName);
    if (!field || field.vectorSearchDimensions === undefined)
      refuse(`has no vector field "${vector.storageName}" (property "${vector.name}")`);
    if (
      field!.vectorSearchDimensions !== vector.dimensions ||
      metricOfProfile(field!.vectorSearchProfileName) !== METRICS[vector.distance]
    ) {
      refuse(
        `declares "${vector.storageName}" with ${field!.vectorSearchDimensions} dimensions and ${metricOfProfile(field!.vectorSearchProfileName)}, the definition ${vector.dimensions} and ${METRICS[vector.distance]}`,
      );
    }
  }
  for (const property of definition.data.filter((d) => d.filterable)) {
    if (fields.get(property.storageName)?.filterable !== true)
      refuse(`has no filterable field "${property.storageName}" (property "${property.name}")`);
  }
}
