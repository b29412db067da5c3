import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DocxDecoder, PptxDecoder, XlsxDecoder } from '../src/index.js';
import { makeDocx } from './fixtures/ooxml-fixtures.js';
import {
  BOMB_PART,
  makeManyPartBomb,
  makeOfficeBomb,
  makeOfficeFile,
  makeOverlappingBomb,
  type OfficeFormat,
} from './fixtures/zip-bombs.js';

const MIB = 1024 * 1024;
const FORMATS: OfficeFormat[] = ['docx', 'pptx', 'xlsx'];
const decoderOf = (format: OfficeFormat, limits = {}) =>
  format === 'docx' ? new DocxDecoder(limits) : format === 'pptx' ? new PptxDecoder(limits) : new XlsxDecoder(limits);
const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const paragraphs = (n: number) =>
  `<w:document ${W}><w:body>${Array.from({ length: n }, (_, i) => `<w:p><w:r><w:t>Paragraph ${i}</w:t></w:r></w:p>`).join('')}</w:body></w:document>`;

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

/**
 * The child process runs the built package, so a build older than the sources would test old
 * code: each `src/**\/*.ts` must have its `dist/**\/*.js`, written after it.
 */
function assertBuildIsFresh(): void {
  const stale: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        const built = join(DIST, relative(SRC, path)).replace(/\.ts$/, '.js');
        if (!existsSync(built) || statSync(built).mtimeMs < statSync(path).mtimeMs) stale.push(relative(SRC, path));
      }
    }
  };
  walk(SRC);
  if (stale.length > 0) throw new Error(`dist/ is missing or older than src/ (${stale.join(', ')}): run pnpm --filter @km/decoders build`);
}

describe('zip bombs are refused as they inflate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'km-zip-bombs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(FORMATS)('a %s of 300 MiB of zeros fails with content_too_large naming the entry and the limit', async (format) => {
    const bomb = makeOfficeBomb(format, 300 * MIB);
    expect(bomb.length).toBeLessThan(MIB);
    const error = await decoderOf(format)
      .decode(bomb)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'content_too_large' });
    expect((error as Error).message).toContain(BOMB_PART[format]);
    expect((error as Error).message).toMatch(/maxCompressionRatio limit \(100\)/);
  });

  it('with the ratio check out of the way, the total limit stops the same bomb, naming the entry', async () => {
    const error = await new DocxDecoder({ maxCompressionRatio: 10_000, maxUncompressedBytes: 8 * MIB })
      .decode(makeOfficeBomb('docx', 300 * MIB))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'content_too_large' });
    expect((error as Error).message).toMatch(/word\/document\.xml.*maxUncompressedBytes limit \(8388608\)/);
  });

  it.each(FORMATS)(
    'a %s of many 1 MiB entries of zeros (each under the per-entry grace) fails on the ratio of the whole archive',
    async (format) => {
      const bomb = makeManyPartBomb(format, 48, MIB);
      expect(bomb.length).toBeLessThan(MIB);
      const error = await decoderOf(format)
        .decode(bomb)
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'content_too_large' });
      expect((error as Error).message).toMatch(/archive's entries read so far.*maxCompressionRatio limit \(100\)/);
    },
  );

  it.each(FORMATS)('a %s whose directory entries overlap (a non-recursive bomb) is refused before inflating', async (format) => {
    const bomb = makeOverlappingBomb(format, 200, MIB);
    const error = await decoderOf(format)
      .decode(bomb)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unsupported_content' });
    expect((error as Error).message).toMatch(/overlap in the archive/);
  });

  it('peak memory while three bombs are refused stays within tens of MB of the normal footprint', () => {
    // A child process of its own, so that the peak (maxRSS) is the bombs' alone. Uses the built package.
    assertBuildIsFresh();
    const dist = pathToFileURL(join(DIST, 'index.js')).href;
    const files = Object.fromEntries(
      FORMATS.map((format) => {
        const file = join(dir, `bomb.${format}`);
        writeFileSync(file, makeOfficeBomb(format, 300 * MIB));
        return [format, file];
      }),
    );
    const normal = join(dir, 'normal.docx');
    writeFileSync(normal, makeDocx([{ text: 'Hello' }]));
    const script = `
      import { readFileSync } from 'node:fs';
      const { DocxDecoder, PptxDecoder, XlsxDecoder } = await import(${JSON.stringify(dist)});
      const files = ${JSON.stringify(files)};
      await new DocxDecoder().decode(readFileSync(${JSON.stringify(normal)}));
      const result = { normalKb: process.resourceUsage().maxRSS, codes: [] };
      for (const [format, Decoder] of [['docx', DocxDecoder], ['pptx', PptxDecoder], ['xlsx', XlsxDecoder]]) {
        const error = await new Decoder().decode(readFileSync(files[format])).catch((e) => e);
        result.codes.push(error?.code);
      }
      result.peakKb = process.resourceUsage().maxRSS;
      process.stdout.write(JSON.stringify(result));`;
    const out = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 }),
    ) as { normalKb: number; peakKb: number; codes: string[] };
    expect(out.codes).toEqual(['content_too_large', 'content_too_large', 'content_too_large']);
    // Whole-entry inflation would add 300 MiB or more; bounded inflation adds a few MiB.
    expect((out.peakKb - out.normalKb) / 1024).toBeLessThan(48);
  });
});

describe('zip headers are not trusted', () => {
  it.each(FORMATS)('a %s part that inflates past the size its headers declare is refused', async (format) => {
    const xml = paragraphs(2000);
    expect(xml.length).toBeGreaterThan(50_000);
    const error = await decoderOf(format)
      .decode(makeOfficeFile(format, xml, 100))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unsupported_content' });
    expect((error as Error).message).toMatch(new RegExp(`${BOMB_PART[format]} inflates past the 100 bytes its zip headers declare`));
  });

  it('a bomb whose headers declare a few bytes stops at once', async () => {
    const error = await new DocxDecoder().decode(makeOfficeBomb('docx', 300 * MIB, 1000)).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/word\/document\.xml inflates past the 1000 bytes/);
  });

  it('the same part with honest headers decodes', async () => {
    const content = await new DocxDecoder().decode(makeOfficeFile('docx', paragraphs(2000)));
    expect(content.sections[0]!.text).toContain('Paragraph 1999');
  });
});
