import { describe, expect, it } from 'vitest';
import { PayloadFields, SimpleVectorDb, isKmError, type IContentDecoder } from '../src/index.js';
import { cleanExtractedText } from '../src/handlers/text-extraction-handler.js';
import { allRecords, inMemoryBuilder } from './helpers.js';

/** A decoder returning what pdf.js returns for unmapped glyphs: NUL characters, and a lone surrogate. */
const glyphs: IContentDecoder = {
  name: 'glyphs',
  supportsMimeType: (m) => m === 'application/x-glyphs',
  decode: async () => ({
    mimeType: 'text/plain',
    sections: [
      { number: 1, text: 'Page one: pen\u0000guins swim.' },
      { number: 2, text: 'Page two: \ud800 seals\u0000 dive.' },
    ],
  }),
};

function setup() {
  const db = new SimpleVectorDb();
  const memory = inMemoryBuilder({ memoryDb: db }).withDecoder(glyphs).build();
  return { memory, db };
}

describe('extracted text is cleaned of what memory DBs cannot store', () => {
  it('a text file with a NUL after the first 8 KiB imports and is searchable', async () => {
    const { memory, db } = setup();
    const text = `${'Filler sentence about nothing in particular. '.repeat(200)}\nThe lighthouse keeper\u0000 feeds the gulls at dawn.`;
    expect(text.indexOf('\u0000')).toBeGreaterThan(8192);
    await memory.importDocument({ name: 'notes.txt', data: Buffer.from(text, 'utf8') }, { documentId: 'nul' });
    expect(await memory.isDocumentReady('nul')).toBe(true);
    const texts = (await allRecords(db)).map((r) => String(r.payload[PayloadFields.text]));
    expect(texts.some((t) => t.includes('The lighthouse keeper feeds the gulls at dawn.'))).toBe(true);
    expect(texts.every((t) => !t.includes('\u0000'))).toBe(true);
    const found = await memory.search('lighthouse keeper feeds the gulls', { limit: 1 });
    expect(found.results.map((c) => c.sourceName)).toEqual(['notes.txt']);
  });

  it("a decoder's NUL characters and lone surrogates (unmapped glyphs) are removed or replaced, section by section", async () => {
    const { memory, db } = setup();
    await memory.importDocument(
      { name: 'scan.glyphs', data: Buffer.from('x'), mimeType: 'application/x-glyphs' },
      { documentId: 'glyphs' },
    );
    const texts = (await allRecords(db)).map((r) => String(r.payload[PayloadFields.text]));
    expect(texts.join('\n')).toContain('Page one: penguins swim.');
    expect(texts.join('\n')).toContain('Page two: \ufffd seals dive.');
  });

  it('cleanExtractedText keeps paired surrogates', () => {
    expect(cleanExtractedText('a\u0000b \ud83d\ude00 \udc00 \ud800')).toBe('ab \ud83d\ude00 \ufffd \ufffd');
  });

  it('a chunk header argument with a NUL is refused at import, naming the argument', async () => {
    const { memory } = setup();
    const error = await memory
      .importText('Some text.', { documentId: 'h', args: { custom_partitioning_chunk_header_str: 'Title\u0000' } })
      .catch((e: unknown) => e);
    expect(isKmError(error, 'invalid_argument')).toBe(true);
    expect((error as Error).message).toMatch(/"custom_partitioning_chunk_header_str".*NUL/);
    const surrogate = await memory
      .importText('Some text.', { documentId: 'h', args: { chunkHeader: 'Title \udc00' } })
      .catch((e: unknown) => e);
    expect(isKmError(surrogate, 'invalid_argument')).toBe(true);
    expect(await memory.getDocumentStatus('h')).toBeNull();
  });
});
