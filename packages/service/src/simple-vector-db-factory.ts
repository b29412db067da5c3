import { join, resolve } from 'node:path';
import { InvalidInputError, SimpleVectorDb, type SimpleVectorDbOptions } from '@km/core';
import type { FactoryContext, MemoryDbFactory } from '@km/core/connector';

/** What the embedded SimpleVectorDb's factory needs besides the logger: the data folder it keeps `vectors/` in. */
export interface SimpleVectorDbFactoryContext extends FactoryContext {
  dataDirectory?: string | undefined;
}

/**
 * The settings of the embedded memory DB (`KM_MEMORY_DB=simple`, the default): how it scans
 * (quantisation, worker threads) and from what size an index gets an HNSW graph. Its records live
 * in `{dataDirectory}/vectors`.
 */
export const simpleVectorDbFactory: MemoryDbFactory = {
  type: 'simple',
  description: 'the embedded SimpleVectorDb in the data folder (one writing process)',
  settings: [
    {
      key: 'simpleQuantization',
      env: ['KM_SIMPLE_VECTOR_DB_QUANTIZATION'],
      flag: '--simple-quantization',
      description: 'int8 (scan int8 codes, rescore exactly in float32) or none (float32 scan only)',
    },
    {
      key: 'simpleScanThreads',
      env: ['KM_SIMPLE_VECTOR_DB_SCAN_THREADS'],
      type: 'number',
      min: 0,
      description: 'worker threads that share the scans of large indexes (0: scan on the main thread)',
    },
    {
      key: 'simpleHnswMinRecords',
      env: ['KM_SIMPLE_VECTOR_DB_HNSW_MIN_RECORDS'],
      type: 'number',
      min: 0,
      description: 'indexes with at least this many records also get an HNSW graph for approximate search (0: never)',
    },
  ],
  async create(settings, context) {
    const directory = join(resolve((context as SimpleVectorDbFactoryContext).dataDirectory ?? './km-data'), 'vectors');
    return new SimpleVectorDb({ directory, logger: context.logger, ...simpleVectorDbOptions(settings) });
  },
};

/** The SimpleVectorDb options the given settings ask for (nothing for settings not given). */
export function simpleVectorDbOptions(settings: Readonly<Record<string, string | number | undefined>>): SimpleVectorDbOptions {
  const options: SimpleVectorDbOptions = {};
  const quantization = settings.simpleQuantization;
  if (quantization !== undefined && quantization !== '') {
    if (quantization !== 'int8' && quantization !== 'none') {
      throw new InvalidInputError(
        'invalid_argument',
        `configuration: memoryDb.simpleQuantization (KM_SIMPLE_VECTOR_DB_QUANTIZATION) must be int8 or none, got ${JSON.stringify(quantization)}`,
      );
    }
    options.quantization = quantization;
  }
  if (typeof settings.simpleScanThreads === 'number') options.scanThreads = settings.simpleScanThreads;
  if (typeof settings.simpleHnswMinRecords === 'number') {
    options.hnsw = settings.simpleHnswMinRecords === 0 ? false : { minRecords: settings.simpleHnswMinRecords };
  }
  return options;
}
