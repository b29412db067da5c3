import { describe, expect, it } from 'vitest';
import type { DriverRecordQuery, DriverVectorQuery, FilterOperator, StorageRecord, VectorStoreDriver } from '@km/core/connector';
import {
  CL100KTokenizer,
  defineRecord,
  type EmbeddingRequestOptions,
  type ITextEmbeddingGenerator,
  isKmError,
  KmError,
  type KeyValue,
  type RecordDefinition,
} from '@km/core';
import { VectorStore } from '../src/vector-store.js';

/**
 * A driver that records the calls the wrapper makes and answers from a map, or with scripted
 * search hits: a unit test of the wrapper's rules, not a claim about any backend.
 */
class RecordingDriver implements VectorStoreDriver {
  readonly name = 'recorder';
  keyTypes: VectorStoreDriver['keyTypes'] = ['string', 'integer', 'uuid'];
  distances: VectorStoreDriver['distances'] = ['cosine', 'dot', 'euclidean'];
  dataTypes?: VectorStoreDriver['dataTypes'];
  filterOperators?: readonly FilterOperator[];
  collectionNameLimit?: { bytes: number; reason: string };
  maxDimensions?: number;
  maxBatchSize?: number;
  readonly calls: Array<{ method: string; args: unknown[] }> = [];
  readonly records = new Map<KeyValue, StorageRecord>();
  hits: Array<[StorageRecord, number]> = [];
  failure: unknown;
  query?: (name: string, definition: RecordDefinition, query: DriverRecordQuery) => Promise<StorageRecord[]>;

  private record(method: string, ...args: unknown[]): void {
    this.calls.push({ method, args });
    if (this.failure !== undefined) throw this.failure;
  }
  callsOf(method: string): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }
  async listCollections() {
    this.record('listCollections');
    return ['a'];
  }
  async collectionExists(name: string) {
    this.record('collectionExists', name);
    return true;
  }
  async createCollection(name: string, definition: RecordDefinition) {
    this.record('createCollection', name, definition);
  }
  async deleteCollection(name: string) {
    this.record('deleteCollection', name);
  }
  async upsert(name: string, definition: RecordDefinition, records: readonly StorageRecord[]) {
    this.record('upsert', name, records);
    for (const r of records) this.records.set(r[definition.key.storageName] as KeyValue, r);
  }
  async get(name: string, definition: RecordDefinition, keys: readonly KeyValue[], includeVectors: boolean) {
    this.record('get', name, keys, includeVectors);
    return keys.flatMap((k) => (this.records.has(k) ? [this.records.get(k)!] : [])).reverse();
  }
  async delete(name: string, _definition: RecordDefinition, keys: readonly KeyValue[]) {
    this.record('delete', name, keys);
  }
  async search(name: string, _definition: RecordDefinition, query: DriverVectorQuery) {
    this.record('search', name, query);
    return this.hits;
  }
}

/** Embeds a text as [length, 1, number of "a"s] and records each call. */
class CountingEmbeddings implements ITextEmbeddingGenerator {
  readonly maxTokens = 1000;
  readonly dimensions = 3;
  readonly tokenizer = new CL100KTokenizer();
  readonly calls: Array<{ texts: string[]; purpose: string | undefined }> = [];
  constructor(readonly maxBatchSize = 1) {}
  async generateEmbeddings(texts: string[], _signal?: AbortSignal, options?: EmbeddingRequestOptions) {
    this.calls.push({ texts, purpose: options?.purpose });
    return texts.map((t) => new Float32Array([t.length, 1, t.split('a').length - 1]));
  }
}

const Note = defineRecord({
  key: { name: 'id', storageName: 'note_id' },
  data: {
    text: { type: 'string', storageName: 'body' },
    stars: { type: 'integer', filterable: true, optional: true },
    tags: { type: 'string[]', filterable: true, optional: true },
  },
  vectors: { textVector: { dimensions: 3, embed: 'text', storageName: 'text_vec' } },
});

function code(e: unknown): string {
  return isKmError(e) ? e.code : `not a KmError: ${String(e)}`;
}
async function rejection(promise: Promise<unknown>): Promise<KmError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof KmError) return e;
    throw new Error(`expected a KmError, got ${String(e)}`);
  }
  throw new Error('expected a rejection');
}
function thrown(fn: () => unknown): KmError {
  try {
    fn();
  } catch (e) {
    if (e instanceof KmError) return e;
    throw new Error(`expected a KmError, got ${String(e)}`);
  }
  throw new Error('expected a KmError');
}

describe('VectorStore', () => {
  it('reports the driver capabilities with defaults', () => {
    const driver = new RecordingDriver();
    driver.distances = ['cosine'];
    const store = new VectorStore(driver);
    expect(store.name).toBe('recorder');
    expect(store.capabilities.distances).toEqual(['cosine']);
    expect(store.capabilities.dataTypes).toEqual(['string', 'number', 'integer', 'boolean', 'date', 'string[]', 'number[]']);
    expect(store.capabilities.filterOperators).toHaveLength(11);
    driver.filterOperators = ['eq'];
    expect(new VectorStore(driver).capabilities.filterOperators).toEqual(['eq']);
  });

  it.each(['', '-notes', '_notes', 'my notes', 'a/../b', 'notes;drop', 'café', 'x'.repeat(129)])(
    'refuses the collection name %j',
    (name) => {
      const driver = new RecordingDriver();
      const store = new VectorStore(driver);
      expect(thrown(() => store.getCollection(name, Note)).code).toBe('invalid_argument');
      expect(driver.calls).toEqual([]);
    },
  );

  it('accepts names of letters, digits, _ and -, 128 at most', async () => {
    const store = new VectorStore(new RecordingDriver());
    expect(store.getCollection('9Notes_2026-a', Note).name).toBe('9Notes_2026-a');
    expect(store.getCollection('x'.repeat(128), Note).name).toHaveLength(128);
  });

  it('checks names against the driver limit, and in collectionExists and deleteCollection', async () => {
    const driver = new RecordingDriver();
    driver.collectionNameLimit = { bytes: 10, reason: 'index names end with a suffix' };
    const store = new VectorStore(driver);
    expect(thrown(() => store.getCollection('elevenchars', Note)).message).toContain('index names end with a suffix');
    expect(code(await rejection(store.collectionExists('a b')))).toBe('invalid_argument');
    expect(code(await rejection(store.deleteCollection('../x')))).toBe('invalid_argument');
    expect(driver.calls).toEqual([]);
    await store.deleteCollection('ok');
    expect(driver.callsOf('deleteCollection')).toEqual([['ok']]);
  });

  it('refuses definitions the driver cannot hold, naming what it holds', () => {
    const driver = new RecordingDriver();
    driver.keyTypes = ['string'];
    driver.distances = ['cosine', 'dot'];
    driver.dataTypes = ['string', 'integer'];
    driver.maxDimensions = 2;
    const store = new VectorStore(driver);
    const make = (input: Parameters<typeof defineRecord>[0]) => () => store.getCollection('c', defineRecord(input));
    expect(thrown(make({ key: { name: 'id', type: 'integer' }, vectors: { v: { dimensions: 2 } } })).message).toContain(
      'key id of type integer; its key types: string',
    );
    expect(thrown(make({ key: 'id', vectors: { v: { dimensions: 2, distance: 'euclidean' } } })).message).toContain(
      'vector v with distance euclidean',
    );
    expect(thrown(make({ key: 'id', data: { d: { type: 'date' } }, vectors: { v: { dimensions: 2 } } })).message).toContain(
      'data property d of type date',
    );
    expect(thrown(make({ key: 'id', vectors: { v: { dimensions: 3 } } })).message).toContain('vector v of 3 dimensions; at most 2');
    expect(thrown(make({ key: 'id', vectors: { v: { dimensions: 3 } } })).code).toBe('invalid_argument');
  });
});

describe('VectorStoreCollection.upsert', () => {
  it('maps records to storage names, de-duplicates keys (last wins) and returns every key in input order', async () => {
    const driver = new RecordingDriver();
    const notes = new VectorStore(driver).getCollection('notes', Note);
    const keys = await notes.upsert([
      { id: 'b', text: 'first b', textVector: [1, 0, 0] },
      { id: 'a', text: 'a', textVector: [0, 1, 0] },
      { id: 'b', text: 'second b', textVector: [0, 0, 1] },
    ]);
    expect(keys).toEqual(['b', 'a', 'b']);
    const [[name, records]] = driver.callsOf('upsert') as [[string, StorageRecord[]]];
    expect(name).toBe('notes');
    expect(records).toHaveLength(2);
    expect(records.find((r) => r.note_id === 'b')).toEqual({
      note_id: 'b',
      body: 'second b',
      stars: null,
      tags: null,
      text_vec: new Float32Array([0, 0, 1]),
    });
  });

  it('returns the key of one record, and does not call the driver for none', async () => {
    const driver = new RecordingDriver();
    const notes = new VectorStore(driver).getCollection('notes', Note);
    expect(await notes.upsert({ id: 'x', text: 't', textVector: [1, 1, 1] })).toBe('x');
    expect(await notes.upsert([])).toEqual([]);
    expect(driver.callsOf('upsert')).toHaveLength(1);
  });

  it('splits writes by the driver maxBatchSize', async () => {
    const driver = new RecordingDriver();
    driver.maxBatchSize = 2;
    const notes = new VectorStore(driver).getCollection('notes', Note);
    await notes.upsert(['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, text: id, textVector: [1, 0, 0] })));
    expect(driver.callsOf('upsert').map(([, records]) => (records as StorageRecord[]).map((r) => r.note_id))).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['e'],
    ]);
  });

  it('embeds missing vectors from their source in batches of the generator, as documents, once per key', async () => {
    const driver = new RecordingDriver();
    const generator = new CountingEmbeddings(2);
    const notes = new VectorStore(driver).getCollection('notes', Note, { embeddingGenerator: generator });
    await notes.upsert([
      { id: '1', text: 'a' },
      { id: '2', text: 'bb', textVector: [9, 9, 9] },
      { id: '3', text: 'ccc' },
      { id: '1', text: 'aaaa' },
      { id: '4', text: 'banana' },
      { id: '5', text: 'e' },
    ]);
    expect(generator.calls).toEqual([
      { texts: ['ccc', 'aaaa'], purpose: 'document' },
      { texts: ['banana', 'e'], purpose: 'document' },
    ]);
    const stored = Object.fromEntries([...driver.records].map(([k, r]) => [k, Array.from(r.text_vec as Float32Array)]));
    expect(stored).toEqual({ '1': [4, 1, 4], '2': [9, 9, 9], '3': [3, 1, 0], '4': [6, 1, 3], '5': [1, 1, 0] });
  });

  it('refuses to embed without a generator (not_configured naming the vector) before writing anything', async () => {
    const driver = new RecordingDriver();
    const notes = new VectorStore(driver).getCollection('notes', Note);
    const error = await rejection(
      notes.upsert([
        { id: '1', text: 'x', textVector: [1, 0, 0] },
        { id: '2', text: 'y' },
      ]),
    );
    expect(error.code).toBe('not_configured');
    expect(error.message).toContain('textVector');
    expect(driver.calls).toEqual([]);
  });

  it('uses the collection generator over the definition one, and the definition one over the store one', async () => {
    const [storeGen, definitionGen, collectionGen] = [new CountingEmbeddings(), new CountingEmbeddings(), new CountingEmbeddings()];
    const WithGenerator = defineRecord({
      key: 'id',
      data: { text: { type: 'string' } },
      vectors: { v: { dimensions: 3, embed: 'text' } },
      embeddingGenerator: definitionGen,
    });
    const store = new VectorStore(new RecordingDriver(), { embeddingGenerator: storeGen });
    await store.getCollection('c', WithGenerator, { embeddingGenerator: collectionGen }).upsert({ id: '1', text: 'x' });
    await store.getCollection('c', WithGenerator).upsert({ id: '1', text: 'x' });
    await store.getCollection('c', Note).upsert({ id: '1', text: 'x' });
    expect([collectionGen.calls.length, definitionGen.calls.length, storeGen.calls.length]).toEqual([1, 1, 1]);
  });

  it('checks embedded vectors like given ones', async () => {
    const generator = new CountingEmbeddings();
    generator.generateEmbeddings = async (texts) => texts.map(() => new Float32Array(2));
    const notes = new VectorStore(new RecordingDriver()).getCollection('notes', Note, { embeddingGenerator: generator });
    expect(code(await rejection(notes.upsert({ id: '1', text: 'x' })))).toBe('vector_size_mismatch');
  });

  it('refuses a bad record naming its position, before anything is embedded or written', async () => {
    const driver = new RecordingDriver();
    const generator = new CountingEmbeddings();
    const notes = new VectorStore(driver).getCollection('notes', Note, { embeddingGenerator: generator });
    const error = await rejection(notes.upsert([{ id: '1', text: 'x' }, { id: '2', text: 'y', extra: 1 } as never]));
    expect(error.code).toBe('invalid_argument');
    expect(error.message).toContain('record 1');
    expect(error.message).toContain('extra');
    expect(generator.calls).toEqual([]);
    expect(driver.calls).toEqual([]);
  });
});

describe('VectorStoreCollection reads and deletes by key', () => {
  it('getMany returns records in the order of the keys, each once, and skips missing ones', async () => {
    const driver = new RecordingDriver();
    const notes = new VectorStore(driver).getCollection('notes', Note);
    await notes.upsert(['a', 'b', 'c'].map((id) => ({ id, text: id, textVector: [1, 0, 0] })));
    const found = await notes.getMany(['c', 'zz', 'a', 'c']);
    expect(found.map((n) => n.id)).toEqual(['c', 'a']);
    expect(driver.callsOf('get')).toEqual([['notes', ['c', 'zz', 'a'], false]]);
    expect('textVector' in found[0]!).toBe(false);
  });

  it('get returns one record or undefined, with vectors when asked', async () => {
    const driver = new RecordingDriver();
    const notes = new VectorStore(driver).getCollection('notes', Note);
    await notes.upsert({ id: 'a', text: 'x', stars: 2, textVector: [1, 0, 0] });
    expect(await notes.get('a', { includeVectors: true })).toEqual({
      id: 'a',
      text: 'x',
      stars: 2,
      tags: null,
      textVector: new Float32Array([1, 0, 0]),
    });
    expect(await notes.get('b')).toBeUndefined();
  });

  it('checks keys before calling the driver', async () => {
    const driver = new RecordingDriver();
    const notes = new VectorStore(driver).getCollection('notes', Note);
    expect(code(await rejection(notes.get('')))).toBe('invalid_argument');
    expect(code(await rejection(notes.getMany(['a', 3 as never])))).toBe('invalid_argument');
    expect(code(await rejection(notes.delete(['a\u0000'])))).toBe('invalid_argument');
    expect(driver.calls).toEqual([]);
  });

  it('delete takes one key or many, each once, and nothing for none', async () => {
    const driver = new RecordingDriver();
    const notes = new VectorStore(driver).getCollection('notes', Note);
    await notes.delete('a');
    await notes.delete(['b', 'c', 'b']);
    await notes.delete([]);
    expect(driver.callsOf('delete')).toEqual([
      ['notes', ['a']],
      ['notes', ['b', 'c']],
    ]);
  });

  it('lowercases uuid keys and compares integer keys as numbers', async () => {
    const driver = new RecordingDriver();
    const ById = defineRecord({ key: { name: 'id', type: 'uuid' }, vectors: { v: { dimensions: 1 } } });
    const byId = new VectorStore(driver).getCollection('u', ById);
    expect(await byId.upsert({ id: 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', v: [1] })).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    expect((await byId.get('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'))?.id).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
  });
});

describe('VectorStoreCollection.search', () => {
  it('embeds a text query as a query and passes limit = top + skip and the checked filter', async () => {
    const driver = new RecordingDriver();
    const generator = new CountingEmbeddings();
    const notes = new VectorStore(driver).getCollection('notes', Note, { embeddingGenerator: generator });
    await notes.search('banana', { top: 2, skip: 3, filter: { stars: { gte: 4 } } });
    expect(generator.calls).toEqual([{ texts: ['banana'], purpose: 'query' }]);
    const [[, query]] = driver.callsOf('search') as [[string, DriverVectorQuery]];
    expect(query.vector).toEqual(new Float32Array([6, 1, 3]));
    expect(query.limit).toBe(5);
    expect(query.vectorProperty.storageName).toBe('text_vec');
    expect(query.filter).toMatchObject({ op: 'gte', value: 4, property: { storageName: 'stars' } });
    expect(query.includeVectors).toBe(false);
  });

  it('defaults to top 3, skip 0', async () => {
    const driver = new RecordingDriver();
    await new VectorStore(driver).getCollection('notes', Note).search([1, 0, 0]);
    expect((driver.callsOf('search')[0]![1] as DriverVectorQuery).limit).toBe(3);
  });

  it.each([
    ['top 0', { top: 0 }],
    ['top 1001', { top: 1001 }],
    ['top 1.5', { top: 1.5 }],
    ['skip -1', { skip: -1 }],
    ['skip 10001', { skip: 10001 }],
    ['minScore NaN', { minScore: Number.NaN }],
    ['an unknown vectorProperty', { vectorProperty: 'body' }],
  ])('refuses %s before calling the driver', async (_, options) => {
    const driver = new RecordingDriver();
    const notes = new VectorStore(driver).getCollection('notes', Note);
    expect(code(await rejection(notes.search([1, 0, 0], options as never)))).toBe('invalid_argument');
    expect(driver.calls).toEqual([]);
  });

  it('checks a query vector like a stored one', async () => {
    const notes = new VectorStore(new RecordingDriver()).getCollection('notes', Note);
    expect((await rejection(notes.search([1, 0]))).message).toContain('2 dimensions');
    expect((await rejection(notes.search([0, 0, 0]))).message).toContain('all zeros');
  });

  it('needs vectorProperty when the definition has several vectors, and uses the one named', async () => {
    const Two = defineRecord({
      key: 'id',
      data: { text: { type: 'string' } },
      vectors: { a: { dimensions: 2 }, b: { dimensions: 3, embed: 'text', distance: 'dot' } },
    });
    const driver = new RecordingDriver();
    const two = new VectorStore(driver, { embeddingGenerator: new CountingEmbeddings() }).getCollection('two', Two);
    const error = await rejection(two.search([1, 0]));
    expect(error.code).toBe('invalid_argument');
    expect(error.message).toContain('a, b');
    await two.search('text', { vectorProperty: 'b' });
    expect((driver.callsOf('search')[0]![1] as DriverVectorQuery).vectorProperty.name).toBe('b');
    const noEmbed = await rejection(two.search('text', { vectorProperty: 'a' }));
    expect(noEmbed.code).toBe('invalid_argument');
    expect(noEmbed.message).toContain('vector a has no embed source');
  });

  it('needs a generator for a text query', async () => {
    const driver = new RecordingDriver();
    const error = await rejection(new VectorStore(driver).getCollection('notes', Note).search('hello'));
    expect(error.code).toBe('not_configured');
    expect(driver.calls).toEqual([]);
  });

  it('orders best first for cosine and dot (higher) and euclidean (lower), ties by key, then skips and cuts', async () => {
    for (const distance of ['cosine', 'dot', 'euclidean'] as const) {
      const Def = defineRecord({ key: { name: 'id', storageName: 'note_id' }, vectors: { v: { dimensions: 1, distance } } });
      const driver = new RecordingDriver();
      driver.hits = [
        [{ note_id: 'd' }, 0.5],
        [{ note_id: 'b' }, 0.9],
        [{ note_id: 'c' }, 0.5],
        [{ note_id: 'a' }, 0.1],
      ];
      const collection = new VectorStore(driver).getCollection('c', Def);
      const all = await collection.search([1], { top: 10 });
      const expected = distance === 'euclidean' ? ['a', 'c', 'd', 'b'] : ['b', 'c', 'd', 'a'];
      expect(
        all.map((r) => r.record.id),
        distance,
      ).toEqual(expected);
      expect(all.map((r) => r.score)).toEqual(distance === 'euclidean' ? [0.1, 0.5, 0.5, 0.9] : [0.9, 0.5, 0.5, 0.1]);
      const page = await collection.search([1], { top: 2, skip: 1 });
      expect(
        page.map((r) => r.record.id),
        distance,
      ).toEqual(expected.slice(1, 3));
    }
  });

  it('drops by minScore: below it for cosine and dot, above it for euclidean', async () => {
    for (const [distance, kept] of [
      ['cosine', ['b', 'c', 'd']],
      ['dot', ['b', 'c', 'd']],
      ['euclidean', ['a', 'c', 'd']],
    ] as const) {
      const Def = defineRecord({ key: { name: 'id', storageName: 'note_id' }, vectors: { v: { dimensions: 1, distance } } });
      const driver = new RecordingDriver();
      driver.hits = [
        [{ note_id: 'd' }, 0.5],
        [{ note_id: 'b' }, 0.9],
        [{ note_id: 'c' }, 0.5],
        [{ note_id: 'a' }, 0.1],
      ];
      const results = await new VectorStore(driver).getCollection('c', Def).search([1], { top: 10, minScore: 0.5 });
      expect(results.map((r) => r.record.id).sort(), distance).toEqual([...kept]);
    }
  });

  it('applies minScore before skip, so a page holds only passing results', async () => {
    const Def = defineRecord({ key: { name: 'id', storageName: 'note_id' }, vectors: { v: { dimensions: 1, distance: 'dot' } } });
    const driver = new RecordingDriver();
    driver.hits = [
      [{ note_id: 'a' }, 3],
      [{ note_id: 'b' }, 2],
      [{ note_id: 'c' }, 1],
    ];
    const page = await new VectorStore(driver).getCollection('c', Def).search([1], { skip: 1, top: 5, minScore: 2 });
    expect(page.map((r) => r.record.id)).toEqual(['b']);
  });

  it('breaks ties between integer keys numerically', async () => {
    const Def = defineRecord({ key: { name: 'n', type: 'integer' }, vectors: { v: { dimensions: 1 } } });
    const driver = new RecordingDriver();
    driver.hits = [
      [{ n: 10 }, 1],
      [{ n: 9 }, 1],
      [{ n: 100 }, 1],
    ];
    const results = await new VectorStore(driver).getCollection('c', Def).search([1], { top: 3 });
    expect(results.map((r) => r.record.n)).toEqual([9, 10, 100]);
  });

  it('maps results back with vectors only when asked', async () => {
    const driver = new RecordingDriver();
    driver.hits = [[{ note_id: 'a', body: 'x', stars: 3, tags: ['t'], text_vec: new Float32Array([1, 2, 3]) }, 0.5]];
    const notes = new VectorStore(driver).getCollection('notes', Note);
    expect(await notes.search([1, 0, 0])).toEqual([{ record: { id: 'a', text: 'x', stars: 3, tags: ['t'] }, score: 0.5 }]);
    const [withVector] = await notes.search([1, 0, 0], { includeVectors: true });
    expect(withVector!.record.textVector).toEqual(new Float32Array([1, 2, 3]));
    expect((driver.callsOf('search')[1]![1] as DriverVectorQuery).includeVectors).toBe(true);
  });

  it('refuses filter operators the driver does not list, naming the operator and the connector, before calling it', async () => {
    const driver = new RecordingDriver();
    driver.filterOperators = ['and', 'eq', 'gte'];
    const notes = new VectorStore(driver).getCollection('notes', Note);
    const error = await rejection(notes.search([1, 0, 0], { filter: { stars: { gte: 1 }, tags: { contains: 'x' } } }));
    expect(error.code).toBe('unsupported_filter');
    expect(error.connector).toBe('recorder');
    expect(error.message).toContain('contains');
    expect(error.message).toContain('recorder');
    expect(driver.calls).toEqual([]);
    await notes.search([1, 0, 0], { filter: { stars: { gte: 1 }, id: 'a' } });
    expect(driver.callsOf('search')).toHaveLength(1);
  });

  it('refuses a bad filter as invalid_filter before calling the driver', async () => {
    const driver = new RecordingDriver();
    const notes = new VectorStore(driver).getCollection('notes', Note);
    expect(code(await rejection(notes.search([1, 0, 0], { filter: { text: 'x' } as never })))).toBe('invalid_filter');
    expect(driver.calls).toEqual([]);
  });
});

describe('VectorStoreCollection.query', () => {
  it('throws unsupported_operation when the driver cannot read by filter', async () => {
    const notes = new VectorStore(new RecordingDriver()).getCollection('notes', Note);
    expect(code(await rejection(notes.query()))).toBe('unsupported_operation');
  });

  it('resolves orderBy to storage names, asks for top + skip and skips', async () => {
    const driver = new RecordingDriver();
    const seen: DriverRecordQuery[] = [];
    driver.query = async (_name, _definition, query) => {
      seen.push(query);
      return ['a', 'b', 'c', 'd'].map((id) => ({ note_id: id, body: id }));
    };
    const notes = new VectorStore(driver).getCollection('notes', Note);
    const found = await notes.query({ orderBy: [{ property: 'stars', descending: true }, { property: 'id' }], top: 2, skip: 1 });
    expect(found.map((n) => n.id)).toEqual(['b', 'c']);
    expect(seen[0]).toMatchObject({
      orderBy: [
        { storageName: 'stars', descending: true },
        { storageName: 'note_id', descending: false },
      ],
      limit: 3,
      filter: undefined,
      includeVectors: false,
    });
  });

  it('refuses to order by a property that is not the key or a filterable scalar', async () => {
    const driver = new RecordingDriver();
    driver.query = async () => [];
    const notes = new VectorStore(driver).getCollection('notes', Note);
    expect((await rejection(notes.query({ orderBy: [{ property: 'text' }] }))).message).toContain('orderable properties');
    expect(code(await rejection(notes.query({ orderBy: [{ property: 'tags' }] })))).toBe('invalid_argument');
    expect(code(await rejection(notes.query({ top: 10001 })))).toBe('invalid_argument');
  });
});

describe('driver errors and aborts', () => {
  it('wraps errors that are not KmErrors in upstream_error naming the connector, keeping the cause', async () => {
    const driver = new RecordingDriver();
    const cause = new TypeError('socket hang up');
    driver.failure = cause;
    const notes = new VectorStore(driver).getCollection('notes', Note);
    for (const call of [
      () => notes.search([1, 0, 0]),
      () => notes.upsert({ id: 'a', text: 'x', textVector: [1, 0, 0] }),
      () => notes.get('a'),
      () => notes.ensureExists(),
    ]) {
      const error = await rejection(call());
      expect(error.code).toBe('upstream_error');
      expect(error.connector).toBe('recorder');
      expect(error.cause).toBe(cause);
      expect(error.message).toContain('socket hang up');
    }
  });

  it('keeps KmErrors a driver throws as they are', async () => {
    const driver = new RecordingDriver();
    const original = new KmError('collection_not_found', 'collection notes does not exist', { connector: 'recorder' });
    driver.failure = original;
    const notes = new VectorStore(driver).getCollection('notes', Note);
    expect(await rejection(notes.upsert({ id: 'a', text: 'x', textVector: [1, 0, 0] }))).toBe(original);
  });

  it('refuses to start once the signal is aborted', async () => {
    const driver = new RecordingDriver();
    const generator = new CountingEmbeddings();
    const notes = new VectorStore(driver).getCollection('notes', Note, { embeddingGenerator: generator });
    const signal = AbortSignal.abort();
    expect(code(await rejection(notes.search([1, 0, 0], { signal })))).toBe('aborted');
    expect(code(await rejection(notes.upsert({ id: 'a', text: 'x' }, { signal })))).toBe('aborted');
    expect(code(await rejection(notes.getMany(['a'], { signal })))).toBe('aborted');
    expect(driver.calls).toEqual([]);
    expect(generator.calls).toEqual([]);
  });

  it('passes the signal to the driver and reports an abort during the call as aborted', async () => {
    const driver = new RecordingDriver();
    const controller = new AbortController();
    driver.search = async (_name, _definition, query) => {
      expect(query.signal).toBe(controller.signal);
      controller.abort();
      throw new DOMException('The operation was aborted', 'AbortError');
    };
    const notes = new VectorStore(driver).getCollection('notes', Note);
    expect(code(await rejection(notes.search([1, 0, 0], { signal: controller.signal })))).toBe('aborted');
  });
});
