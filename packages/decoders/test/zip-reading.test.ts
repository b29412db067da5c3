import { Zip, ZipDeflate, ZipPassThrough, strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { DocxDecoder } from '../src/index.js';
import { INFLATE_SLICE_BYTES, inflateEntry } from '../src/zip/bounded-inflate.js';
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
  for (const [name, content] of [['_rels/.rels', '<Relationships/>'], ['word/document.xml', xml]] as const) {
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

describe('zip layouts decode the same', () => {
  const xml = documentXml(Array.from({ length: 300 }, (_, i) => `<w:p><w:r><w:t>Line ${i} of the streamed document.</w:t></w:r></w:p>`).join(''));
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
    await expect(new DocxDecoder().decode(makeDocx([], documentXml(deep)))).rejects.toMatchObject({ code: 'content_too_large', message: expect.stringMatching(/deeper than 1000 levels/) });
  });

  it('a part parsed in slices keeps text, entities and multi-byte characters that straddle a slice boundary', async () => {
    const word = 'Grüße &amp; 東京 — ';
    const body = `<w:p><w:r><w:t>${word.repeat(12_000)}</w:t></w:r></w:p>`;
    const content = await new DocxDecoder().decode(makeDocx([], documentXml(body)));
    expect(content.sections[0]!.text).toBe('Grüße & 東京 — '.repeat(12_000).trim());
  });
});
