import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresMemoryDb } from '../src/index.js';
import { CONFIGURATIONS, type Configuration, readOutputs } from './fixtures/compat-scenario.js';

interface Fixture {
  statements: Array<{ sql: string; params: unknown[] }>;
  outputs: Record<string, unknown>;
}

// Tables written by km 0.x's memory DB driver (the fixture holds the statements it ran, and the
// results of its reads) open unchanged: today's PostgresMemoryDb reads exactly the same.
let pglite: PGlite;
let fixture: Fixture;
beforeAll(async () => {
  fixture = JSON.parse(await readFile(new URL('./fixtures/km-tables-v0.json', import.meta.url), 'utf8')) as Fixture;
  pglite = await PGlite.create({ extensions: { vector } });
  for (const { sql, params } of fixture.statements) await pglite.query(sql, params);
});
afterAll(async () => pglite?.close());

describe('PostgresMemoryDb opens tables written by km 0.x', () => {
  it('lists, searches (vector, lexical, hybrid) and reads records as km 0.x did, in every layout it wrote', async () => {
    const logger = { debug() {}, info() {}, warn() {}, error() {} };
    const open = (configuration: Configuration) => new PostgresMemoryDb({ pglite, logger, ...CONFIGURATIONS[configuration] });
    const outputs = await readOutputs(open);
    for (const [read, expected] of Object.entries(fixture.outputs)) expect(outputs[read], read).toEqual(expected);
    expect(Object.keys(outputs)).toEqual(Object.keys(fixture.outputs));
  });
});
