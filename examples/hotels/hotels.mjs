// km typed collections, worked example: hotels in the built-in vector store, embedded offline
// by the local Universal Sentence Encoder from @km/ai-local. No key, no network, no server.
//
//   pnpm --filter @km/example-hotels start
//
// Every step prints what it did and asserts what must hold (node:assert): a wrong result exits
// with a non-zero status. The store lives in a fresh folder under the OS temp dir, removed at
// the end.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDefaultEmbeddingGenerator } from '@km/ai-local';
import { collectionSearchTool, SimpleVectorStore } from '@km/collections';
import { HOTELS } from './hotel-data.mjs';
import { hotelRecord } from './hotel-record.mjs';

/** @typedef {import('./hotel-record.mjs').Hotel} Hotel */

const embeddings = createDefaultEmbeddingGenerator();
await embeddings.ready();
console.log(`embeddings: ${embeddings.modelName} (${embeddings.dimensions} dimensions)`);
const Hotel = hotelRecord(embeddings.dimensions);

const directory = await mkdtemp(join(tmpdir(), 'km-hotels-'));
console.log(`store: ${directory}\n`);
const store = new SimpleVectorStore({ directory, embeddingGenerator: embeddings });
const started = performance.now();
try {
  const hotels = store.getCollection('hotels', Hotel);
  await hotels.ensureExists();

  // Upsert without vectors: the collection embeds the descriptions (in batches) before storing.
  const keys = await hotels.upsert(HOTELS);
  assert.deepEqual(
    keys,
    HOTELS.map((h) => h.hotelId),
  );
  console.log(`upserted ${keys.length} hotels (descriptions embedded by the collection)\n`);

  // 1. A text search: the query is embedded with the same generator; scores are cosine similarity.
  const query = 'a relaxing beach holiday by the sea';
  const nearest = await hotels.search(query, { top: 3 });
  show(`search "${query}"`, nearest);
  assert.equal(nearest.length, 3);
  assertBestFirst(nearest);
  const [best] = nearest;
  assert.ok(best);
  assert.ok(best.record.tags.includes('beach'), `the best match for "${query}" should be a beach hotel`);
  assert.equal(best.record.descriptionEmbedding, undefined, 'vectors are left out unless asked for');

  // 2. The same search, filtered: rating 4 or more and a pool. The filter is checked against
  //    the definition (only filterable properties) and run by the store, not after the fact.
  const filtered = await hotels.search(query, { top: 12, filter: { rating: { gte: 4 }, tags: { contains: 'pool' } } });
  show(`search "${query}" where rating >= 4 and tags contains "pool"`, filtered);
  assertBestFirst(filtered);
  for (const { record } of filtered) assert.ok(record.rating >= 4 && record.tags.includes('pool'), `${record.hotelId} breaks the filter`);
  assert.deepEqual(
    keysOf(filtered).sort(),
    expected((h) => h.rating >= 4 && h.tags.includes('pool')),
  );

  // 3. An `or` of cities.
  const southern = await hotels.search('somewhere to eat well', { top: 12, filter: { or: [{ city: 'Rome' }, { city: 'Barcelona' }] } });
  show('search "somewhere to eat well" in Rome or Barcelona', southern);
  assert.deepEqual(
    keysOf(southern).sort(),
    expected((h) => h.city === 'Rome' || h.city === 'Barcelona'),
  );

  // 4. A date range (ISO strings or Dates). Hotels without an opening date never match a range.
  const from = new Date('2010-01-01');
  const to = new Date('2020-01-01');
  const newer = await hotels.search('a comfortable room', {
    top: 12,
    filter: { openedOn: { gte: '2010-01-01', lt: '2020-01-01' } },
  });
  show('search "a comfortable room" opened in 2010-2019', newer, (r) => `opened ${r.openedOn?.toISOString().slice(0, 10)}`);
  for (const { record } of newer) assert.ok(record.openedOn instanceof Date, 'dates come back as Date');
  assert.deepEqual(
    keysOf(newer).sort(),
    expected((h) => h.openedOn != null && h.openedOn >= from && h.openedOn < to),
  );

  // 5. get, without and with vectors.
  const plain = await hotels.get('kyo-ryokan');
  assert.ok(plain);
  assert.equal(plain.descriptionEmbedding, undefined);
  const full = await hotels.get('kyo-ryokan', { includeVectors: true });
  assert.ok(full?.descriptionEmbedding instanceof Float32Array);
  assert.equal(full.descriptionEmbedding.length, embeddings.dimensions);
  console.log(`get kyo-ryokan: ${plain.name}, ${plain.city}; vector left out: ${plain.descriptionEmbedding === undefined}`);
  console.log(`get kyo-ryokan with vectors: descriptionEmbedding has ${full.descriptionEmbedding.length} numbers\n`);

  // 6. getMany: the records that exist, in the order of the keys asked for.
  const some = await hotels.getMany(['osl-fjord', 'no-such-hotel', 'lis-alfama']);
  console.log(`getMany osl-fjord, no-such-hotel, lis-alfama: ${some.map((h) => h.hotelId).join(', ')}\n`);
  assert.deepEqual(
    some.map((h) => h.hotelId),
    ['osl-fjord', 'lis-alfama'],
  );

  // 7. query: records by filter in an order, no vector involved (cheapest first, then by key).
  const cheapest = await hotels.query({ filter: { pricePerNight: { lte: 200 } }, orderBy: [{ property: 'pricePerNight' }] });
  console.log('query pricePerNight <= 200, cheapest first:');
  for (const h of cheapest) console.log(`  ${String(h.pricePerNight).padStart(4)} €  ${h.name} (${h.city})`);
  console.log();
  assert.deepEqual(
    cheapest.map((h) => h.hotelId),
    HOTELS.filter((h) => h.pricePerNight <= 200)
      .sort((a, b) => a.pricePerNight - b.pricePerNight)
      .map((h) => h.hotelId),
  );

  // 8. delete, then get: gone.
  await hotels.delete('par-gare');
  const deleted = await hotels.get('par-gare');
  console.log(`delete par-gare, then get: ${deleted}`);
  assert.equal(deleted, undefined);
  const after = await hotels.search(query, { top: 12 });
  assert.equal(after.length, HOTELS.length - 1);
  assert.ok(!keysOf(after).includes('par-gare'));

  // 9. The store's collections.
  const collections = await store.listCollections();
  console.log(`listCollections: ${collections.join(', ')}\n`);
  assert.deepEqual(collections, ['hotels']);

  // 10. The collection as a tool a model can call: a name, a description, a JSON Schema of its
  //     input and `execute`, which checks what the model sent (framework-neutral: hand the parts
  //     to MCP, the AI SDK or LangChain). The application's scope is always ANDed in.
  const searchHotels = collectionSearchTool(hotels, {
    name: 'search_hotels',
    description: 'Finds hotels by what the guest wants; filter by city, rating, price per night or tags.',
    scope: { pricePerNight: { lte: 400 } }, // the budget cap: the model can narrow it, never widen it
    returnProperties: ['name', 'city', 'rating', 'pricePerNight', 'tags'],
  });
  const schema = searchHotels.inputSchema;
  console.log(
    `tool ${searchHotels.name}: input ${Object.keys(schema.properties ?? {}).join(', ')}; filter on ${Object.keys(schema.properties?.filter?.properties ?? {}).join(', ')}`,
  );
  // The arguments of a model's tool call arrive as JSON text.
  const modelInput = JSON.parse('{"query": "a spa to unwind after a long trip", "top": 3, "filter": {"rating": {"gte": 4.5}}}');
  const toolOutput = await searchHotels.execute(modelInput);
  console.log(`execute ${JSON.stringify(modelInput)}:`);
  for (const { key, score, record } of toolOutput.results) {
    console.log(`  ${score.toFixed(3)}  ${key}: ${record.name} (${record.city}; rating ${record.rating}, ${record.pricePerNight} €)`);
  }
  assert.equal(toolOutput.results.length, 3);
  for (const { key, record } of toolOutput.results) {
    assert.ok(Number(record.rating) >= 4.5 && Number(record.pricePerNight) <= 400, `${key} breaks the model's filter or the scope`);
    assert.ok(!('descriptionEmbedding' in record) && !('description' in record), 'a tool returns only returnProperties, never vectors');
  }
  assert.deepEqual(JSON.parse(JSON.stringify(toolOutput)), toolOutput, 'a tool returns plain JSON');
  // A wrong call is refused with a message the model can act on (return it as the tool's error).
  await assert.rejects(searchHotels.execute({ query: 'a spa', filter: { stars: 5 } }), (error) => {
    assert.ok(error instanceof Error && 'code' in error && error.code === 'invalid_filter');
    console.log(`execute {"query":"a spa","filter":{"stars":5}} is refused: ${error.message}\n`);
    return true;
  });

  console.log(`all checks passed in ${Math.round(performance.now() - started)} ms (after the model loaded)`);
} finally {
  await store.close();
  await embeddings.close();
  await rm(directory, { recursive: true, force: true });
  console.log(`removed ${directory}`);
}

/**
 * Prints search results, best first, with their cosine similarity.
 * @param {string} title
 * @param {import('@km/collections').VectorSearchResult<Hotel>[]} results
 * @param {(hotel: Hotel) => string} [detail]
 */
function show(title, results, detail = (r) => `rating ${r.rating.toFixed(1)}, ${r.pricePerNight} €`) {
  console.log(`${title}:`);
  for (const { record, score } of results) {
    console.log(`  ${score.toFixed(3)}  ${record.name} (${record.city}; ${detail(record)}; ${record.tags.join(', ')})`);
  }
  console.log();
}

/** @param {import('@km/collections').VectorSearchResult<Hotel>[]} results */
function assertBestFirst(results) {
  const scores = results.map((r) => r.score);
  assert.deepEqual(
    scores,
    [...scores].sort((a, b) => b - a),
    'results come best first',
  );
}

/** @param {import('@km/collections').VectorSearchResult<Hotel>[]} results */
function keysOf(results) {
  return results.map(({ record }) => record.hotelId);
}

/**
 * The keys of the input hotels a filter must return: computed here in plain JavaScript.
 * @param {(hotel: Hotel) => boolean} predicate
 */
function expected(predicate) {
  return HOTELS.filter(predicate)
    .map((h) => h.hotelId)
    .sort();
}
