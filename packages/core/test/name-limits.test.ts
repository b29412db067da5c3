import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  Document,
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  silentLogger,
  validateDocumentId,
  validateFileName,
} from '../src/index.js';
import { MAX_DOCUMENT_ID_BYTES, MAX_FILE_NAME_BYTES, MAX_PATH_SEGMENT_BYTES, utf8Length } from '../src/connector.js';
import { thrownCode } from './helpers.js';

/** A name of exactly `bytes` UTF-8 bytes ending in `.txt`, with two-byte characters in it. */
const nameOf = (bytes: number): string => {
  const accents = 'é'.repeat(20); // 40 bytes
  return accents + 'a'.repeat(bytes - 40 - 4) + '.txt';
};

describe('name limits', () => {
  it('are what one path segment holds, with room for derived file names', () => {
    expect(MAX_PATH_SEGMENT_BYTES).toBe(255);
    expect(MAX_DOCUMENT_ID_BYTES).toBe(255);
    expect(MAX_FILE_NAME_BYTES).toBe(155);
  });

  it('refuses a document id over 255 bytes (a 256-character id made ENAMETOOLONG)', () => {
    expect(validateDocumentId('a'.repeat(255))).toHaveLength(255);
    expect(thrownCode(() => validateDocumentId('a'.repeat(256)))).toBe('invalid_document_id');
  });

  it('counts a file name in UTF-8 bytes and refuses an uploaded name over 155', () => {
    expect(utf8Length(nameOf(155))).toBe(155);
    expect(validateFileName(nameOf(155), { uploaded: true })).toBe(nameOf(155));
    expect(thrownCode(() => validateFileName(nameOf(156), { uploaded: true }))).toBe('invalid_file_name');
    // 130 characters but 260 bytes
    expect(thrownCode(() => validateFileName('é'.repeat(126) + '.txt'))).toBe('invalid_file_name');
    expect(thrownCode(() => validateFileName('a'.repeat(200) + '.pdf'))).toBe('invalid_file_name');
    expect(thrownCode(() => validateFileName('a'.repeat(255)))).toBe('invalid_file_name');
  });

  it('accepts the derived names of an uploaded name at the limit, and no derived name of a longer one', () => {
    const upload = nameOf(155);
    const longest = `..km.${upload}.partition.1234567.txt.${'m'.repeat(57)}.text_embedding`;
    expect(utf8Length(longest)).toBe(255);
    for (const derived of [
      `..km.${upload}.extract.json`,
      `..km.${upload}.extract.txt`,
      `..km.${upload}.summary.txt`,
      `..km.${upload}.partition.12.txt`,
      longest,
      // names of documents written by earlier versions
      `${upload}.extract.txt`,
      `${upload}.partition.12.txt`,
    ]) {
      expect(validateFileName(derived)).toBe(derived);
    }
    expect(thrownCode(() => validateFileName(`${nameOf(156)}.extract.txt`))).toBe('invalid_file_name');
    expect(thrownCode(() => validateFileName(`..km.${nameOf(156)}.extract.txt`))).toBe('invalid_file_name');
    // An upload may not pass for a derived name
    expect(thrownCode(() => validateFileName(`${'a'.repeat(150)}.extract.txt`, { uploaded: true }))).toBe('invalid_file_name');
  });

  it('makes an in-process import refuse a file name that is too long, with InvalidInputError', () => {
    expect(thrownCode(() => new Document('d').addBuffer(nameOf(200), 'text'))).toBe('invalid_file_name');
    expect(thrownCode(() => new Document('a'.repeat(256)))).toBe('invalid_document_id');
    // A file named like a derived one is still an uploaded file: its whole name counts.
    expect(thrownCode(() => new Document('d').addBuffer(`${'a'.repeat(150)}.extract.txt`, 'text'))).toBe('invalid_file_name');
  });

  it('keeps embedding file names within a path segment whatever the model name’s length, distinct per model', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'km-names-'));
    try {
      const names: string[] = [];
      for (const suffix of ['a', 'b']) {
        const generator = Object.assign(new HashingEmbeddingGenerator(), { modelName: `${'deployment-'.repeat(30)}${suffix}` });
        const memory = new KernelMemoryBuilder()
          .withEmbeddingGenerator(generator)
          .withDataDirectory(join(dir, suffix))
          .withLogger(silentLogger)
          .build();
        await memory.importDocument(new Document('doc').addBuffer(nameOf(MAX_FILE_NAME_BYTES), 'Comets have tails.'));
        const files = await readdir(join(dir, suffix, ...(await folderOf(join(dir, suffix), 'doc'))));
        const embedding = files.find((f) => f.endsWith('.text_embedding'))!;
        expect(utf8Length(embedding)).toBeLessThanOrEqual(MAX_PATH_SEGMENT_BYTES);
        names.push(embedding);
      }
      expect(names[0]).not.toBe(names[1]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('lets a document with the longest id and file name go through the whole pipeline on disk', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'km-names-'));
    try {
      const generator = Object.assign(new HashingEmbeddingGenerator(), { modelName: 'm'.repeat(57) });
      const memory = new KernelMemoryBuilder().withEmbeddingGenerator(generator).withDataDirectory(dir).withLogger(silentLogger).build();
      const id = 'd'.repeat(MAX_DOCUMENT_ID_BYTES);
      const name = nameOf(MAX_FILE_NAME_BYTES);
      await memory.importDocument(new Document(id).addBuffer(name, 'The Moon orbits the Earth. '.repeat(40)), {
        steps: ['extract', 'partition', 'gen_embeddings', 'save_records'],
      });
      const status = await memory.getDocumentStatus(id);
      expect(status).toMatchObject({ completed: true, failed: false });
      const files = await readdir(join(dir, ...(await folderOf(dir, id))));
      expect(files.some((f) => f.endsWith('.text_embedding'))).toBe(true);
      expect(Math.max(...files.map(utf8Length))).toBeLessThanOrEqual(MAX_PATH_SEGMENT_BYTES);
      expect((await memory.search('Moon')).results[0]?.sourceName).toBe(name);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** The path, under the data folder, of the document's folder. */
async function folderOf(dir: string, id: string): Promise<string[]> {
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory() && entry.name === id) return [entry.parentPath.slice(dir.length + 1), id].filter(Boolean);
  }
  throw new Error(`no folder for ${id}`);
}
