import { readFile } from 'node:fs/promises';
import { compareRecordIds } from '@km/core/connector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElasticsearchMemoryDb } from '../src/index.js';
import { CONFIGURATIONS, type Configuration, readOutputs, type Recording, writeData } from './fixtures/compat-scenario.js';
import { type FakeElasticsearch, matches, startFakeElasticsearch } from './fixtures/fake-elasticsearch.js';

// Indexes written by km 0.x's memory DB driver open unchanged. The fixture (made by
// fixtures/make-compat-fixture.ts with that driver, against the in-memory fake Elasticsearch)
// holds the requests it sent, the indexes as stored and the results of its reads. Today's
// ElasticsearchMemoryDb (core's MemoryDb over the typed driver) must (a) store the same
// documents under the same _ids with the same mappings, (b) read the stored documents back into
// the same records, and (c) send equivalent requests: same paths, same bodies, filters matching
// the same documents. Two differences are intended and checked as such: listings come in UTF-16
// code-unit order (km's contract; km 0.x returned Elasticsearch's UTF-8 byte order), and a vector
// given as doubles is stored as its float32 values (what Elasticsearch indexes and what km 0.x read
// back), not the doubles.

interface Request {
  method: string;
  path: string;
  body: unknown;
}
interface StoredIndex {
  mappings: Record<string, unknown>;
  docs: Record<string, Record<string, unknown>>;
}
interface Fixture {
  requests: Record<string, Request[]>;
  indexes: Record<string, StoredIndex>;
  outputs: Record<string, unknown>;
}
type JsonRecord = { id: string; vector: number[]; tags: Record<string, unknown>; payload: Record<string, unknown> };

const fixture = JSON.parse(await readFile(new URL('./fixtures/km-elasticsearch-v0.json', import.meta.url), 'utf8')) as Fixture;

function opener(es: FakeElasticsearch) {
  return (configuration: Configuration) => new ElasticsearchMemoryDb({ node: es.url, maxRetries: 0, ...CONFIGURATIONS[configuration] });
}
const stored = (es: FakeElasticsearch): Record<string, StoredIndex> =>
  Object.fromEntries([...es.indexes].map(([name, { mappings, docs }]) => [name, { mappings, docs: Object.fromEntries(docs) }]));
const float32 = (values: number[]) => values.map((v) => Math.fround(v));

/** The only record whose vector is not float32-exact (see the scenario). */
const DOUBLES_ID = 'd=doc2//p=5';

/** The fixture's documents as today's code writes them: the doubles of one vector as float32 values. */
function expectedIndexes(): Record<string, StoredIndex> {
  const indexes = structuredClone(fixture.indexes);
  for (const index of Object.values(indexes)) {
    const doc = index.docs[DOUBLES_ID];
    if (doc) doc.embedding = float32(doc.embedding as number[]);
  }
  return indexes;
}

describe('ElasticsearchMemoryDb writes what km 0.x wrote', () => {
  let es: FakeElasticsearch;
  const recording: Recording = { requests: {}, outputs: {} };
  beforeAll(async () => {
    es = await startFakeElasticsearch();
    await writeData(opener(es), es, recording);
  });
  afterAll(() => es.close());

  it('the same indexes: names, mappings (strict, payload not indexed, content text, cosine HNSW), documents by _id', () => {
    expect(Object.keys(stored(es)).sort()).toEqual(Object.keys(fixture.indexes).sort());
    expect(stored(es)).toEqual(expectedIndexes());
    // The one difference: km 0.x kept the doubles it was given in _source.
    expect(fixture.indexes['km--dash']!.docs[DOUBLES_ID]!.embedding).toEqual([0.1, 0.2, 0.3, 0.4]);
    expect(stored(es)['km--dash']!.docs[DOUBLES_ID]!.embedding).toEqual(float32([0.1, 0.2, 0.3, 0.4]));
  });

  it('ids over 512 bytes, or looking hashed, are hashed into the _id as before; the id field keeps them', () => {
    const ids = Object.keys(stored(es)['km-compat']!.docs);
    expect(ids.filter((id) => id.startsWith('sha256:'))).toHaveLength(2);
    expect(ids.sort()).toEqual(Object.keys(fixture.indexes['km-compat']!.docs).sort());
  });

  it('index creation sends the same mapping and settings; writes the same bulk lines; deleteIndex the same request', () => {
    const bodies = (requests: Request[] | undefined, method: string, pathStart: string) =>
      (requests ?? []).filter((r) => r.method === method && r.path.startsWith(pathStart)).map((r) => [r.path, r.body]);
    for (const step of ['createIndex compat', 'createIndex -dash', 'createIndex gone', 'createIndex custom archive']) {
      const put = (requests: Request[] | undefined) => (requests ?? []).filter((r) => r.method === 'PUT').map((r) => [r.path, r.body]);
      expect(put(recording.requests[step]), step).toEqual(put(fixture.requests[step]));
      expect(put(recording.requests[step]), step).toHaveLength(1);
    }
    for (const step of ['upsertBatch compat', 'upsertBatch -dash', 'upsert odd ids', 'upsertBatch custom archive']) {
      const old = bodies(fixture.requests[step], 'POST', '/_bulk').map(([path, lines]) => [
        path,
        (lines as Array<Record<string, unknown>>).map((line) =>
          line.id === DOUBLES_ID ? { ...line, embedding: float32(line.embedding as number[]) } : line,
        ),
      ]);
      expect(bodies(recording.requests[step], 'POST', '/_bulk'), step).toEqual(old);
    }
    expect(bodies(recording.requests['deleteIndex gone'], 'DELETE', '/')).toEqual(
      bodies(fixture.requests['deleteIndex gone'], 'DELETE', '/'),
    );
  });

  it('delete removes the same document in one request, as km 0.x did (a bulk delete action by the same _id, where km 0.x sent DELETE _doc; no existence check)', () => {
    expect(fixture.requests.delete).toHaveLength(1);
    const [old] = fixture.requests.delete!.filter((r) => r.method === 'DELETE');
    expect(old!.path).toBe(`/km-compat/_doc/${encodeURIComponent(DOUBLES_ID)}?refresh=wait_for`);
    expect(recording.requests.delete).toHaveLength(1);
    const bulk = recording.requests.delete!.find((r) => r.path.startsWith('/_bulk'));
    expect(bulk).toMatchObject({
      path: '/_bulk?refresh=wait_for&require_alias=false',
      body: { delete: { _index: 'km-compat', _id: DOUBLES_ID } },
    });
  });

  it('a zero vector is refused before any request, as before', () => {
    expect(recording.outputs['upsert zero vector']).toBe('invalid_argument');
    expect(fixture.outputs['upsert zero vector']).toBe('invalid_argument');
    expect(recording.requests['upsert zero vector']).toEqual([]);
  });
});

describe("ElasticsearchMemoryDb reads km 0.x's indexes", () => {
  let es: FakeElasticsearch;
  const recording: Recording = { requests: {}, outputs: {} };
  let outputs: Record<string, unknown>;
  beforeAll(async () => {
    es = await startFakeElasticsearch();
    for (const [name, index] of Object.entries(fixture.indexes)) {
      es.indexes.set(name, { mappings: structuredClone(index.mappings), docs: new Map(Object.entries(structuredClone(index.docs))) });
    }
    outputs = await readOutputs(opener(es), es, recording);
  });
  afterAll(() => es.close());

  /** Every record km 0.x returned from km-compat, by id and whether it carried its vector. */
  const pool = new Map<string, JsonRecord>();
  const collectRecords = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collectRecords);
    else if (value && typeof value === 'object' && 'id' in value && 'payload' in value) {
      const r = value as JsonRecord;
      pool.set(`${r.id}|${r.vector.length > 0}`, r);
    }
  };
  collectRecords(Object.entries(fixture.outputs).flatMap(([name, output]) => (name.includes('custom') ? [] : [output])));

  const reads = Object.keys(fixture.outputs).filter((name) => name !== 'upsert zero vector');
  const listings = reads.filter((name) => name.startsWith('list') && Array.isArray(fixture.outputs[name]));

  it.each(reads.filter((name) => !listings.includes(name)))('%s: the same results, scores and records', (name) => {
    expect(outputs[name]).toEqual(fixture.outputs[name]);
  });

  it.each(listings)('%s: the same records, in UTF-16 code-unit order', (name) => {
    const got = outputs[name] as JsonRecord[];
    expect(got.map((r) => r.id)).toEqual(got.map((r) => r.id).sort(compareRecordIds));
    const old = fixture.outputs[name] as JsonRecord[];
    const limited = /limit (\d+)/.exec(name);
    if (!limited) expect(got).toEqual([...old].sort((a, b) => compareRecordIds(a.id, b.id)));
    else {
      for (const record of got) expect(record).toEqual(pool.get(`${record.id}|${record.vector.length > 0}`));
      // The first n of the whole listing in km's order (km 0.x took the first n by UTF-8 bytes).
      const all = (fixture.outputs['list all'] as JsonRecord[]).map((r) => r.id).sort(compareRecordIds);
      expect(got.map((r) => r.id)).toEqual(all.slice(0, Number(limited[1])));
    }
  });

  it('the listing order differs from km 0.x only for ids with characters from U+E000 up or outside the BMP', () => {
    const old = (fixture.outputs['list all'] as JsonRecord[]).map((r) => r.id);
    const now = (outputs['list all'] as JsonRecord[]).map((r) => r.id);
    expect(now).not.toEqual(old);
    const plain = (ids: string[]) => ids.filter((id) => !/[\uD800-\uFFFF]/.test(id));
    expect(plain(now)).toEqual(plain(old));
  });

  /** Documents to compare filters on: the stored ones, and every combination of the tags the scenario filters on. */
  const corpus = (() => {
    const docs = Object.values(fixture.indexes).flatMap((index) => Object.entries(index.docs).map(([_id, _source]) => ({ _id, _source })));
    const tags = ['team:ops', 'team:dev', 'type:draft', 'type:note', 'type:a:b', 'flag', 'ключ:значение', '__document_id:doc1', 'odd:yes'];
    for (let mask = 0; mask < 1 << tags.length; mask += 3) {
      docs.push({ _id: `mask${mask}`, _source: { id: `mask${mask}`, tags: tags.filter((_, i) => mask & (1 << i)) } });
    }
    return docs;
  })();
  const matching = (query: unknown) => corpus.filter((doc) => matches(query as Record<string, unknown>, doc)).map((d) => d._id);

  /** A search body with its filter replaced by the documents it matches (and km 0.x's kNN `similarity` left out). */
  function normalised(body: unknown): unknown {
    if (body === undefined) return body;
    type Body = {
      knn?: { similarity?: number; filter?: unknown };
      query?: { bool?: { must?: Array<{ match?: unknown }>; filter?: unknown } } | unknown[];
    };
    const copy = structuredClone(body) as Body;
    const query = copy.query as { bool?: { must?: Array<{ match?: unknown }>; filter?: unknown } } | undefined;
    if (copy.knn) {
      delete copy.knn.similarity;
      if (copy.knn.filter) copy.knn.filter = matching(copy.knn.filter);
    } else if (query?.bool?.must?.[0]?.match) {
      if (query.bool.filter) query.bool.filter = matching({ bool: { filter: query.bool.filter } });
    } else if (query) {
      copy.query = matching(query);
    }
    return copy;
  }
  const searchesOf = (requests: Request[] | undefined) =>
    (requests ?? [])
      .filter((r) => r.path.includes('/_search') || r.path.startsWith('/_cat'))
      .map((r) => [r.method, r.path, normalised(r.body)]);

  it.each(reads)('%s: equivalent requests (same paths and bodies; filters match the same documents)', (name) => {
    const old = searchesOf(fixture.requests[`read: ${name}`]);
    const now = searchesOf(recording.requests[`read: ${name}`]);
    if (name === 'list with embeddings, limit 3' || name === 'list limit 2 (odd ids first)') {
      // The first page is km 0.x's request; its ids hold characters whose order differs, so every match is read then.
      expect(now[0]).toEqual(old[0]);
      expect(now.slice(1)).toEqual([[old[0]![0], old[0]![1], { ...(old[0]![2] as object), size: 1000 }]]);
    } else {
      expect(now).toEqual(old);
    }
  });

  it('the filters compared are not trivial: each matches some documents and misses others', () => {
    for (const name of ['list AND', 'list OR', 'list NOT', 'list null tag and unicode tag']) {
      const body = fixture.requests[`read: ${name}`]!.find((r) => r.path.includes('/_search'))!.body as { query: unknown };
      const found = matching(body.query);
      expect(found.length, name).toBeGreaterThan(0);
      expect(found.length, name).toBeLessThan(corpus.length);
    }
  });
});

it('a payload that is no JSON object (written by another program) reads as {}, as km 0.x read it, instead of failing the read', async () => {
  const es = await startFakeElasticsearch();
  try {
    const compat = fixture.indexes['km-compat']!;
    const doc = (id: string, payload: unknown) => ({ id, tags: ['k:v'], payload, content: '', embedding: [1, 0, 0, 0] });
    es.indexes.set('km-notes', {
      mappings: structuredClone(compat.mappings),
      docs: new Map([
        ['a', doc('a', 'not json')],
        ['b', doc('b', '[1,2]')],
        ['c', doc('c', 42)],
        ['d', doc('d', { text: 'ok' })],
      ]),
    });
    const db = opener(es)('plain');
    const listed: Array<[string, unknown]> = [];
    for await (const r of db.getList('notes')) listed.push([r.id, r.payload]);
    expect(listed).toEqual([
      ['a', {}],
      ['b', {}],
      ['c', {}],
      ['d', { text: 'ok' }],
    ]);
  } finally {
    await es.close();
  }
});
