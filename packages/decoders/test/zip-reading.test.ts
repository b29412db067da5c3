import { Zip, ZipDeflate, ZipPassThrough, strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, DocxDecoder } from '../src/index.js';
import { readXml } from '../src/ooxml/xml.js';
import { INFLATE_SLICE_BYTES, inflateEntry } from '../src/zip/bounded-inflate.js';
import { readZipParts } from '../src/zip/safe-unzip.js';
import { makeDocx } from './fixtures/ooxml-fixtures.js';
import { deflatedZeros } from './fixtures/zip-bombs.js';

const MIB = 1024 * 1024;
const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const documentXml = (body: string) => `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${body}</w:body></w:document>`;

/** A .docx written by fflate's streaming Zip: sizes in a data descriptor after each entry, zeros in the local headers. */
function streamedDocx(xml: string, stored: boolean): Buffer {
  const out: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    out.push(chunk);
  });
  for (const [name, content] of [
    ['_rels/.rels', '<Relationships/>'],
    ['word/document.xml', xml],
  ] as const) {
    const file = stored ? new ZipPassThrough(name) : new ZipDeflate(name, { level: 6 });
    zip.add(file);
    file.push(strToU8(content), true);
  }
  zip.end();
  return Buffer.concat(out);
}

describe('bounded inflation', () => {
  it('output reaches the sink in pieces of at most one input slice at deflate’s largest ratio, so a limit is passed by one piece at most', () => {
    const { compressed } = deflatedZeros(64 * MIB);
    const limit = 2 * MIB;
    let produced = 0;
    let largest = 0;
    const stop = new Error('over the limit');
    expect(() =>
      inflateEntry(8, compressed, (chunk) => {
        produced += chunk.length;
        largest = Math.max(largest, chunk.length);
        if (produced > limit) throw stop;
      }),
    ).toThrow(stop);
    expect(largest).toBeLessThanOrEqual(INFLATE_SLICE_BYTES * 1032 + 32 * 1024);
    expect(produced).toBeLessThanOrEqual(limit + largest);
  });

  it('a truncated deflate stream is an error', () => {
    const { compressed } = deflatedZeros(MIB);
    expect(() => inflateEntry(8, compressed.subarray(0, compressed.length - 20), () => undefined)).toThrow();
  });
});

describe('inflated parts are parsed as their chunks, never joined', () => {
  it('readXml takes the chunks and decodes a character split across two of them', () => {
    const bytes = Buffer.from('<a><t>Grüße 東京</t><t>second</t></a>', 'utf8');
    const texts: string[] = [];
    const split = bytes.indexOf(Buffer.from('東')) + 1; // inside the three bytes of 東
    const chunks = [bytes.subarray(0, 9), bytes.subarray(9, split), bytes.subarray(split, split + 1), bytes.subarray(split + 1)];
    readXml(chunks, { open: (name) => name === 't' && texts.push(''), text: (t) => (texts[texts.length - 1] += t) });
    expect(texts.join('|')).toBe('Grüße 東京|second');
  });

  it('a large part comes back from the archive as several chunks, and decodes the same as one', async () => {
    const xml = documentXml(
      Array.from(
        { length: 40_000 },
        (_, i) => `<w:p><w:r><w:t>Row ${i} of a long document with some varied words ${i * 7919}.</w:t></w:r></w:p>`,
      ).join(''),
    );
    const docx = makeDocx([], xml);
    const parts = readZipParts(docx, (name) => name === 'word/document.xml', DEFAULT_LIMITS, 'Word');
    const chunks = parts.get('word/document.xml')!;
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(Buffer.byteLength(xml));
    const { sections } = await new DocxDecoder().decode(docx);
    expect(sections[0]!.text).toContain('Row 39999 of a long document');
  });

  it('at most 64 MiB are inflated from an Office file by default', () => {
    expect(DEFAULT_LIMITS.maxUncompressedBytes).toBe(64 * MIB);
  });
});

describe('zip layouts decode the same', () => {
  const xml = documentXml(
    Array.from({ length: 300 }, (_, i) => `<w:p><w:r><w:t>Line ${i} of the streamed document.</w:t></w:r></w:p>`).join(''),
  );
  it('entries with data descriptors (sizes after the data) and stored entries', async () => {
    const expected = await new DocxDecoder().decode(makeDocx([], xml));
    expect(expected.sections[0]!.text).toContain('Line 299 of the streamed document.');
    expect(await new DocxDecoder().decode(streamedDocx(xml, false))).toEqual(expected);
    expect(await new DocxDecoder().decode(streamedDocx(xml, true))).toEqual(expected);
  });
});

describe('XML parsing is bounded', () => {
  it('a part nesting elements thousands deep fails with content_too_large', async () => {
    const deep = `${'<w:p>'.repeat(5000)}${'</w:p>'.repeat(5000)}`;
    await expect(new DocxDecoder().decode(makeDocx([], documentXml(deep)))).rejects.toMatchObject({
      code: 'content_too_large',
      message: expect.stringMatching(/deeper than 1000 levels/),
    });
  });

  it('a part parsed in slices keeps text, entities and multi-byte characters that straddle a slice boundary', async () => {
    const word = 'Grüße &amp; 東京 — ';
    const body = `<w:p><w:r><w:t>${word.repeat(12_000)}</w:t></w:r></w:p>`;
    const content = await new DocxDecoder().decode(makeDocx([], documentXml(body)));
    expect(content.sections[0]!.text).toBe('Grüße & 東京 — '.repeat(12_000).trim());
  });
});
