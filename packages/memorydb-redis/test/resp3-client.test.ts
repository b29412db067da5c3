import { MemoryFilters, isKmError } from '@km/core';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisMemoryDb, toFloat32Blob } from '../src/index.js';
import { type Reply, type RespRecorder, startRespRecorder } from './resp-recorder.js';

// A client of your own speaking RESP3 (node-redis's default) gets map replies: FT.INFO, MODULE
// LIST, FT.SEARCH and FT.AGGREGATE in the RESP3 shapes of the Query Engine reference.
const row = (fields: Reply[]): Reply => ({ map: ['id', 'km-i:x', 'extra_attributes', { map: fields }, 'values', []] });

function answer(args: string[]): Reply | undefined {
  switch (args[0]!.toUpperCase()) {
    case 'HELLO':
      return { map: ['server', 'redis', 'version', '8.2.0', 'proto', 3, 'modules', []] };
    case 'MODULE':
      return [{ map: ['name', 'search', 'ver', 80200, 'path', '', 'args', []] }];
    case 'FT._LIST':
      return ['km-a', 'km-b'];
    case 'FT.INFO':
      return {
        map: [
          'index_name',
          args[1]!,
          'attributes',
          [
            { map: ['identifier', 'tags', 'attribute', 'tags', 'type', 'TAG', 'SEPARATOR', ',', 'flags', ['CASESENSITIVE']] },
            { map: ['identifier', 'embedding', 'attribute', 'embedding', 'type', 'VECTOR', 'algorithm', 'FLAT', 'dim', 2, 'flags', []] },
          ],
          'num_docs',
          1,
        ],
      };
    case 'FT.SEARCH':
      return {
        map: [
          'attributes',
          [],
          'format',
          'STRING',
          'results',
          [row(['id', 'x', 'tags', 'k:v%20w', 'payload', '{"text":"t"}', 'embedding', toFloat32Blob([3, 4]), '__km_score', '0.4'])],
          'total_results',
          1,
          'warning',
          [],
        ],
      };
    case 'FT.AGGREGATE':
      return [
        { map: ['attributes', [], 'format', 'STRING', 'results', [row(['id', 'y']), row(['id', 'x'])], 'total_results', 2, 'warning', []] },
        0,
      ];
    case 'HMGET':
      return [args[1]!.slice('km-i:'.length), '', '{}'];
    default:
      return undefined;
  }
}

let recorder: RespRecorder;
beforeAll(async () => {
  recorder = await startRespRecorder(answer);
});
afterAll(() => recorder.close());

describe('a RESP3 client of your own', () => {
  it('lists, reads the vector size, searches and lists records; close() leaves the client open', async () => {
    const client = createClient({ url: recorder.url, RESP: 3 });
    const db = new RedisMemoryDb({ client });
    expect(await db.getIndexes()).toEqual(['a', 'b']);
    await expect(db.createIndex('i', 3)).rejects.toSatisfy((e: unknown) => isKmError(e, 'vector_size_mismatch'));
    const results = [];
    for await (const r of db.getSimilarList('i', [1, 0], { filters: [MemoryFilters.byTag('k', 'v w')], withEmbeddings: true }))
      results.push(r);
    expect(results.map(([r, s]) => [r.id, r.tags, Array.from(r.vector), s])).toEqual([['x', { k: ['v w'] }, [3, 4], 0.6]]);
    const listed = [];
    for await (const r of db.getList('i')) listed.push(r.id);
    expect(listed).toEqual(['x', 'y']);
    await db.close();
    expect(client.isOpen).toBe(true);
    await client.close();
  });
});
