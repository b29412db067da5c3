import type { FilterNode, ResolvedDataProperty, ResolvedKeyProperty } from '@km/core/connector';
import { defineRecord, isKmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import { CollectionStatements, lexicalWhereStart } from '../src/vector-store/collection-statements.js';
import { filterToSql } from '../src/vector-store/filter-sql.js';

const data = (storageName: string, type: ResolvedDataProperty['type'] = 'string'): ResolvedDataProperty => ({
  kind: 'data',
  name: 'prop',
  storageName,
  type,
  filterable: true,
  fullText: false,
  optional: true,
});
const key: ResolvedKeyProperty = { kind: 'key', name: 'id', storageName: 'id', type: 'string', storageNameGiven: false };
const city = data('city');
const rating = data('rating', 'number');
const tags = data('tags', 'string[]');

describe('vector-store filters as SQL', () => {
  it('each comparison is a quoted column against a numbered parameter', () => {
    const cases: Array<[FilterNode, string, unknown[]]> = [
      [{ op: 'eq', property: city, value: 'Paris' }, '"city" = $4', ['Paris']],
      [{ op: 'ne', property: city, value: 'Paris' }, 'NOT coalesce("city" = $4, false)', ['Paris']],
      [{ op: 'gt', property: rating, value: 4 }, '"rating" > $4', [4]],
      [{ op: 'gte', property: rating, value: 4 }, '"rating" >= $4', [4]],
      [{ op: 'lt', property: rating, value: 4 }, '"rating" < $4', [4]],
      [{ op: 'lte', property: rating, value: 4 }, '"rating" <= $4', [4]],
      [{ op: 'in', property: city, values: ['Rome', 'Oslo'] }, '"city" = ANY($4)', [['Rome', 'Oslo']]],
      [{ op: 'in', property: city, values: [] }, 'FALSE', []],
      [{ op: 'contains', property: tags, value: 'pool' }, '"tags" @> ARRAY[$4]::text[]', ['pool']],
      [{ op: 'eq', property: key, value: 'h1' }, '"id" = $4', ['h1']],
      [{ op: 'and', nodes: [] }, 'TRUE', []],
      [{ op: 'or', nodes: [] }, 'FALSE', []],
    ];
    for (const [node, sql, params] of cases) expect(filterToSql(node, 4), node.op).toEqual({ sql, params });
  });

  it('not, and, or nest; negations read NULL as false; parameters number in order', () => {
    const node: FilterNode = {
      op: 'and',
      nodes: [
        { op: 'gte', property: rating, value: 4 },
        {
          op: 'or',
          nodes: [
            { op: 'eq', property: city, value: 'Paris' },
            { op: 'not', node: { op: 'contains', property: tags, value: 'pool' } },
          ],
        },
      ],
    };
    expect(filterToSql(node, 3)).toEqual({
      sql: '("rating" >= $3 AND ("city" = $4 OR NOT coalesce("tags" @> ARRAY[$5]::text[], false)))',
      params: [4, 'Paris', 'pool'],
    });
  });

  it('no filter is TRUE; dates stay Date parameters', () => {
    expect(filterToSql(undefined, 3)).toEqual({ sql: 'TRUE', params: [] });
    const when = new Date('2026-01-02T03:04:05Z');
    expect(filterToSql({ op: 'lt', property: data('opened', 'date'), value: when }, 1)).toEqual({ sql: '"opened" < $1', params: [when] });
  });

  it('a hostile value is only a parameter, never SQL text', () => {
    const hostile = `x'); DROP TABLE hotels; --`;
    const { sql, params } = filterToSql(
      {
        op: 'or',
        nodes: [
          { op: 'eq', property: city, value: hostile },
          { op: 'in', property: city, values: [hostile] },
          { op: 'contains', property: tags, value: hostile },
        ],
      },
      1,
    );
    expect(sql).toBe('("city" = $1 OR "city" = ANY($2) OR "tags" @> ARRAY[$3]::text[])');
    expect(sql).not.toContain('DROP');
    expect(params).toEqual([hostile, [hostile], hostile]);
  });

  it('a hostile storage name is a quoted identifier; one PostgreSQL would cut or cannot hold is refused naming the property', () => {
    const hostile = data('x" = $1 OR TRUE; DROP TABLE hotels; --');
    expect(filterToSql({ op: 'eq', property: hostile, value: 'v' }, 1).sql).toBe('"x"" = $1 OR TRUE; DROP TABLE hotels; --" = $1');
    const long = { ...data('é'.repeat(32)), name: 'longOne' };
    expect(() => filterToSql({ op: 'eq', property: long, value: 'v' }, 1)).toThrow(/property "longOne".*63 bytes/);
    try {
      filterToSql({ op: 'eq', property: { ...data('a\u0000b'), name: 'nul' }, value: 'v' }, 1);
      expect.unreachable();
    } catch (e) {
      expect(isKmError(e, 'invalid_argument')).toBe(true);
    }
  });
});

describe('collection statements', () => {
  const Hotel = defineRecord({
    key: { name: 'hotelId', type: 'integer', storageName: 'hotel_id' },
    data: {
      name: { type: 'string', storageName: 'hotel_name', filterable: true },
      rating: { type: 'number', filterable: true },
      tags: { type: 'string[]', filterable: true },
      opened: { type: 'date', optional: true },
    },
    vectors: {
      embedding: { dimensions: 8 },
      byDot: { dimensions: 4, distance: 'dot', storageName: 'dot vec' },
      byL2: { dimensions: 2001, distance: 'euclidean' },
    },
  });
  const sql = new CollectionStatements('app', 'hotels', Hotel);

  it('creates a table with the storage names, SQL types and a primary key', () => {
    expect(sql.createTable()).toBe(
      'CREATE TABLE IF NOT EXISTS "app"."hotels" ("hotel_id" bigint PRIMARY KEY, "hotel_name" text, "rating" double precision, "tags" text[], "opened" timestamptz, "embedding" vector(8), "dot vec" vector(4), "byL2" vector(2001))',
    );
  });

  it('one HNSW index per vector, with the operator class of its distance; past 2000 dimensions on its halfvec cast', () => {
    const indexes = sql.createVectorIndexes({ m: 16, efConstruction: 64 }).map((i) => i.sql);
    expect(indexes).toHaveLength(3);
    expect(indexes[0]).toMatch(/USING hnsw \("embedding" vector_cosine_ops\)\s+WITH \(m = 16, ef_construction = 64\)/);
    expect(indexes[1]).toMatch(/USING hnsw \("dot vec" vector_ip_ops\)/);
    expect(indexes[2]).toMatch(/USING hnsw \(\("byL2"::halfvec\(2001\)\) halfvec_l2_ops\)/);
  });

  it('without halfvec (pgvector before 0.7), vectors past 2000 dimensions have no index', () => {
    const old = new CollectionStatements('app', 'hotels', Hotel, {}, false);
    expect(old.createVectorIndexes({ m: 16, efConstruction: 64 }).map((i) => i.column)).toEqual(['embedding', 'dot vec']);
  });

  it('a vector indexed as halfvec is ordered by the halfvec distance (so the index serves it), scored exactly', () => {
    const l2 = Hotel.vectors[2]!;
    expect(sql.search(l2, 'TRUE', false)).toMatch(
      /"byL2" <-> \$1::vector AS s FROM "app"."hotels"\s+WHERE "byL2" IS NOT NULL AND TRUE ORDER BY \("byL2"::halfvec\(2001\)\) <-> \$1::halfvec\(2001\) LIMIT \$2$/,
    );
  });

  it('upserts many rows in one statement, one parameter per cell', () => {
    expect(sql.columnsPerRecord).toBe(8);
    const text = sql.upsert(2);
    expect(text).toContain('VALUES ($1, $2, $3, $4, $5, $6, $7, $8), ($9, $10, $11, $12, $13, $14, $15, $16)');
    expect(text).toContain('ON CONFLICT ("hotel_id") DO UPDATE SET "hotel_name" = EXCLUDED."hotel_name"');
  });

  it('searches order by the distance operator alone and report the score in the distance convention', () => {
    const [cosine, dot] = Hotel.vectors;
    const l2 = new CollectionStatements('app', 'hotels', Hotel, {}, false).definition.vectors[2];
    expect(sql.search(cosine!, 'TRUE', false)).toMatch(
      /1 - \("embedding" <=> \$1::vector\) AS s FROM "app"."hotels"\s+WHERE "embedding" IS NOT NULL AND TRUE ORDER BY "embedding" <=> \$1::vector LIMIT \$2$/,
    );
    expect(sql.search(dot!, 'TRUE', false)).toMatch(
      /-\("dot vec" <#> \$1::vector\) AS s .* ORDER BY "dot vec" <#> \$1::vector LIMIT \$2$/s,
    );
    expect(new CollectionStatements('app', 'hotels', Hotel, {}, false).search(l2!, 'TRUE', false)).toMatch(
      /"byL2" <-> \$1::vector AS s .* ORDER BY "byL2" <-> \$1::vector LIMIT \$2$/s,
    );
    expect(sql.search(cosine!, 'TRUE', true)).toContain('"embedding"::text AS v0, "dot vec"::text AS v1');
  });

  it('ranks lexical candidates tier after tier under one LIMIT; a gated last tier runs only when the others found fewer rows than the limit', () => {
    const Doc = defineRecord({
      key: { name: 'id', type: 'string' },
      data: { body: { type: 'string', fullText: true } },
      vectors: { embedding: { dimensions: 3 } },
    });
    const docs = new CollectionStatements('app', 'docs', Doc);
    const open = docs.lexicalRank('body_tsv', 'TRUE', false, 3);
    expect(open).toContain('"body_tsv" @@ $6::tsquery AND TRUE LIMIT $5) UNION ALL (SELECT');
    expect(open).toContain('"body_tsv" @@ $8::tsquery AND TRUE LIMIT $5)) AS u LIMIT $5');
    expect(open).not.toContain('km_first');
    const gated = docs.lexicalRank('body_tsv', 'TRUE', false, 3, true);
    expect(gated).toContain('km_first AS MATERIALIZED (SELECT km_k FROM ((SELECT');
    expect(gated).toMatch(/"body_tsv" @@ \$8::tsquery AND TRUE\s+AND \(SELECT count\(DISTINCT km_k\) FROM km_first\) < \$4 LIMIT \$5\)/);
    expect(lexicalWhereStart(3)).toBe(9);
    expect(lexicalWhereStart(0)).toBe(5);
  });

  it('reads and deletes by key with one array parameter', () => {
    expect(sql.get(false)).toBe(
      'SELECT "hotel_id" AS k, "hotel_name" AS d0, "rating" AS d1, "tags" AS d2, "opened" AS d3 FROM "app"."hotels" WHERE "hotel_id" = ANY($1)',
    );
    expect(sql.delete()).toBe('DELETE FROM "app"."hotels" WHERE "hotel_id" = ANY($1)');
  });

  it('queries order by the given columns, missing values last, strings by code point, ties by key', () => {
    expect(
      sql.query(
        'TRUE',
        [
          { storageName: 'hotel_name', descending: true },
          { storageName: 'rating', descending: false },
        ],
        false,
      ),
    ).toMatch(/ORDER BY "hotel_name" COLLATE "C" DESC NULLS LAST, "rating" ASC NULLS LAST, "hotel_id" ASC LIMIT \$1$/);
  });
});
