// Option detection and hnswlib-node build helpers of the vector bench (node --test).
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { findNodeDir, headerVersion } from '../lib/build-hnswlib.mjs';
import { declaredKeys, interfaceBases, interfaceKeys } from '../lib/km-vector-options.mjs';

const DECLARATIONS = `
import type { Logger } from '../util/logger.js';
/** Options of {@link VectorIndex}. */
export interface IndexOptions {
    /** Scores int8 codes first (\`<= 0\`: off). @default 'none' */
    quantization?: 'none' | 'int8';
}
/** Options of {@link SimpleVectorDb}. */
export interface SimpleVectorDbOptions extends IndexOptions, Pick<Other, 'x'> {
    /** Folder (a: b) that persists every index. */
    directory?: string;
    readonly durable?: boolean;
    hnsw?: {
        m?: number;
        efSearch?: number;
    };
    onLoss?: (loss: { ids: string[] }) => void;
    logger?: Logger;
}
`;

test('interfaceKeys lists top-level keys only, past doc comments, nested types and arrow types', () => {
  assert.deepEqual(interfaceKeys(DECLARATIONS, 'SimpleVectorDbOptions'), ['directory', 'durable', 'hnsw', 'onLoss', 'logger']);
  assert.equal(interfaceKeys(DECLARATIONS, 'Missing'), undefined);
  assert.deepEqual(interfaceBases(DECLARATIONS, 'SimpleVectorDbOptions'), ['IndexOptions', 'Pick']);
});

test('declaredKeys adds the keys of extended interfaces from any declaration file', () => {
  const [index, db] = DECLARATIONS.split('/** Options of {@link SimpleVectorDb}. */');
  const keys = declaredKeys([db, index], 'SimpleVectorDbOptions');
  assert.deepEqual([...keys].sort(), ['directory', 'durable', 'hnsw', 'logger', 'onLoss', 'quantization']);
  assert.equal(declaredKeys([index], 'SimpleVectorDbOptions'), undefined);
});

test('the hnswlib-node build uses Node headers of the running version only', () => {
  const text = '#define NODE_MAJOR_VERSION 20\n#define NODE_MINOR_VERSION 20\n#define NODE_PATCH_VERSION 2\n';
  assert.equal(headerVersion(text), 'v20.20.2');
  const prefix = mkdtempSync(join(tmpdir(), 'km-node-prefix-'));
  try {
    mkdirSync(join(prefix, 'include', 'node'), { recursive: true });
    mkdirSync(join(prefix, 'bin'));
    writeFileSync(join(prefix, 'include', 'node', 'node_version.h'), text);
    const execPath = join(prefix, 'bin', 'node');
    assert.equal(findNodeDir({}, execPath, 'v20.20.2'), prefix);
    assert.equal(findNodeDir({}, execPath, 'v22.1.0'), undefined, 'headers of another version');
    assert.equal(findNodeDir({ npm_config_nodedir: prefix }, '/nowhere/bin/node', 'v20.20.2'), prefix);
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
});
