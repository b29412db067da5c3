import { isKmError, type RecordDefinition } from '@km/core';
import type { CollectionOptions, IVectorStoreCollection, VectorStore } from '@km/collections';
import { eventually, randomName } from '../util/async.js';
import type { VectorStoreSuiteOptions } from './vector-store-suite-options.js';

/** A record as the suite handles it (definitions are built at run time from the capabilities). */
export type AnyRecord = Record<string, unknown>;

/** What a store says it can do (`VectorStore.capabilities`). */
export type VectorStoreCapabilities = VectorStore['capabilities'];

/** What one case gets: a fresh store, collections with random names, and the means to skip. */
export interface VectorStoreCaseContext {
  readonly store: VectorStore;
  readonly capabilities: VectorStoreCapabilities;
  readonly options: VectorStoreSuiteOptions;
  /** A collection name no other test uses; the collection is deleted after the case. */
  collectionName(): string;
  /** A handle on a collection with a fresh random name (not created yet). */
  collection(definition: RecordDefinition, options?: CollectionOptions): IVectorStoreCollection<AnyRecord>;
  /** Ends the case as a named skip. */
  skip(reason: string): never;
  /** Retries a read assertion until writes are visible (backends that index asynchronously). */
  wait(assertion: () => Promise<void> | void): Promise<void>;
}

/** One case: a readable rule name maps to a function that checks it. */
export type VectorStoreCase = (t: VectorStoreCaseContext) => Promise<void>;
export type VectorStoreCases = Readonly<Record<string, VectorStoreCase>>;

/** How a case is run: how long reads are retried, and how a skip is reported. */
export interface VectorStoreCaseSettings {
  /** @default 5000 */
  visibilityTimeoutMs?: number;
  skip(reason: string): never;
}

/**
 * Runs one case on a fresh store, then deletes every collection it named and closes the store.
 * An error of the case wins over one of the cleanup.
 */
export async function runVectorStoreCase(
  options: VectorStoreSuiteOptions,
  run: VectorStoreCase,
  settings: VectorStoreCaseSettings,
): Promise<void> {
  const store = await options.createStore();
  const names = new Set<string>();
  const collectionName = () => {
    const name = randomName('kmvs');
    names.add(name);
    return name;
  };
  const context: VectorStoreCaseContext = {
    store,
    capabilities: store.capabilities,
    options,
    collectionName,
    collection: (definition, collectionOptions) => store.getCollection(collectionName(), definition, collectionOptions),
    skip: settings.skip,
    wait: (assertion) => eventually(assertion, settings.visibilityTimeoutMs ?? 5000),
  };
  let failed = true;
  try {
    await run(context);
    failed = false;
  } finally {
    const cleanup = async () => {
      for (const name of names) await store.deleteCollection(name);
      await store.close();
    };
    if (failed) await cleanup().catch(() => undefined);
    else await cleanup();
  }
}

/**
 * The code of the km error `action` throws, `no error`, or what was thrown instead: asserting
 * on it shows a raw driver error in the report.
 */
export async function errorCodeOf(action: () => unknown): Promise<string> {
  try {
    await action();
  } catch (e) {
    if (isKmError(e)) return e.code;
    return `not a km error: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
  }
  return 'no error';
}
