import type { DataPropertyType, DistanceFunction, ITextEmbeddingGenerator, KeyType, RecordDefinition } from '@km/core';
import {
  callDriver,
  checkCollectionName,
  checkDefinitionSupported,
  DATA_PROPERTY_TYPES,
  FILTER_OPERATORS,
  type FilterOperator,
  isCollectionName,
  type VectorStoreDriver,
} from '@km/core/connector';
import { VectorStoreCollection } from './vector-store-collection.js';
import type { CollectionOptions, IVectorStore, IVectorStoreCollection } from './vector-store-types.js';

/** Options of a {@link VectorStore}. */
export interface VectorStoreOptions {
  /** Embeds for collections whose definition has no generator and that are given none. @default none */
  embeddingGenerator?: ITextEmbeddingGenerator;
}

/** What a store can hold and translate, with the driver's defaults applied. */
export interface VectorStoreCapabilities {
  readonly keyTypes: readonly KeyType[];
  readonly distances: readonly DistanceFunction[];
  readonly dataTypes: readonly DataPropertyType[];
  readonly filterOperators: readonly FilterOperator[];
  /** Largest vector, when the backend has a limit. */
  readonly maxDimensions: number | undefined;
  /** Collections answer `lexicalSearch` (the driver has it). */
  readonly lexicalSearch: boolean;
}

/**
 * A store of typed collections over one backend's driver. Core owns the rules (names,
 * definitions, records, filters, scores, paging); the driver translates to the backend.
 *
 * ```ts
 * const store = new VectorStore(new SimpleVectorStoreDriver({ directory: './data' }), { embeddingGenerator });
 * const hotels = store.getCollection('hotels', Hotel);
 * await hotels.ensureExists();
 * ```
 */
export class VectorStore implements IVectorStore {
  readonly capabilities: VectorStoreCapabilities;
  private readonly embeddingGenerator: ITextEmbeddingGenerator | undefined;

  constructor(
    readonly driver: VectorStoreDriver,
    options: VectorStoreOptions = {},
  ) {
    this.embeddingGenerator = options.embeddingGenerator;
    this.capabilities = Object.freeze({
      keyTypes: Object.freeze([...driver.keyTypes]),
      distances: Object.freeze([...driver.distances]),
      dataTypes: Object.freeze([...(driver.dataTypes ?? DATA_PROPERTY_TYPES)]),
      filterOperators: Object.freeze([...(driver.filterOperators ?? FILTER_OPERATORS)]),
      maxDimensions: driver.maxDimensions,
      lexicalSearch: typeof driver.lexicalSearch === 'function',
    });
  }

  /** The backend's name, e.g. `postgres`. */
  get name(): string {
    return this.driver.name;
  }

  /** The driver's collections whose names are valid collection names (others could not be opened). */
  async listCollections(): Promise<string[]> {
    const names = await callDriver(this.driver.name, 'list collections', undefined, () => this.driver.listCollections());
    return names.filter(isCollectionName);
  }

  async collectionExists(name: string): Promise<boolean> {
    const checked = checkCollectionName(name, this.driver);
    return callDriver(this.driver.name, `check collection ${checked}`, undefined, () => this.driver.collectionExists(checked));
  }

  async deleteCollection(name: string): Promise<void> {
    const checked = checkCollectionName(name, this.driver);
    return callDriver(this.driver.name, `delete collection ${checked}`, undefined, () => this.driver.deleteCollection(checked));
  }

  /**
   * A handle on a collection of records of `definition`. Checks the name and that the store
   * can hold the definition (`invalid_argument` otherwise); creates nothing. The collection
   * embeds with `options.embeddingGenerator`, else the definition's, else the store's.
   */
  getCollection<R>(name: string, definition: RecordDefinition<R>, options: CollectionOptions = {}): IVectorStoreCollection<R> {
    const checked = checkCollectionName(name, this.driver);
    checkDefinitionSupported(this.driver, definition);
    const generator = options.embeddingGenerator ?? definition.embeddingGenerator ?? this.embeddingGenerator;
    return new VectorStoreCollection(this.driver, checked, definition, generator);
  }

  /** Releases the driver's connections or files. */
  async close(): Promise<void> {
    if (this.driver.close) await callDriver(this.driver.name, 'close', undefined, () => this.driver.close!());
  }
}
