import { describe, expect, it } from 'vitest';
import { CL100KTokenizer, chunkText, isKmError } from '../src/index.js';

const tokenizer = new CL100KTokenizer();
const sentence = (i: number) => `Sentence number ${i} talks about topic ${i % 7} in some detail.`;

describe('chunkText', () => {
  it('keeps every chunk within the token budget and loses no sentence', () => {
    const text = Array.from({ length: 200 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkText(text, tokenizer, { maxTokensPerChunk: 100, overlapTokens: 20 });
    expect(chunks.length).toBeGreaterThan(10);
    for (const c of chunks) expect(tokenizer.countTokens(c)).toBeLessThanOrEqual(100);
    for (let i = 0; i < 200; i++) expect(chunks.some((c) => c.includes(sentence(i)))).toBe(true);
  });

  it('repeats whole trailing sentences of a chunk at the start of the next (overlap)', () => {
    const text = Array.from({ length: 60 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkText(text, tokenizer, { maxTokensPerChunk: 80, overlapTokens: 20 });
    for (let i = 1; i < chunks.length; i++) {
      const lastOfPrevious = chunks[i - 1]!.split(/(?<=\.)\s+/).pop()!;
      expect(chunks[i]!.startsWith(lastOfPrevious)).toBe(true);
    }
    const noOverlap = chunkText(text, tokenizer, { maxTokensPerChunk: 80, overlapTokens: 0 });
    expect(noOverlap.join(' ').split('Sentence number').length - 1).toBe(60);
  });

  it('splits paragraphs first and never mixes a short paragraph into the middle of a sentence', () => {
    const text = 'First paragraph is short.\n\nSecond paragraph is also short.';
    expect(chunkText(text, tokenizer, { maxTokensPerChunk: 1000 })).toEqual([text]);
  });

  it('starts a new chunk at a markdown heading of level 1 to 3, under the context of the headings above', () => {
    const body = Array.from({ length: 3 }, (_, i) => sentence(i)).join(' ');
    const text = `# Intro\n\n${body}\n\n## Details\n\n${body}`;
    const chunks = chunkText(text, tokenizer, { maxTokensPerChunk: 200, overlapTokens: 10, markdown: true });
    expect(chunks).toEqual([`# Intro\n\n${body}`, `Intro\n\n## Details\n\n${body}`]);
  });

  it('keeps a tiny section with the next one, and breaks at a level 4 heading only once the chunk is half full', () => {
    const body = Array.from({ length: 3 }, (_, i) => sentence(i)).join(' ');
    const tiny = '# Title\n\nShort intro.\n\n## Next\n\nMore.';
    expect(chunkText(tiny, tokenizer, { maxTokensPerChunk: 1000, overlapTokens: 0, markdown: true })).toEqual([tiny]);
    const deep = `## Part\n\n${body}\n\n#### Note\n\n${body}`;
    expect(chunkText(deep, tokenizer, { maxTokensPerChunk: 1000, overlapTokens: 0, markdown: true })).toEqual([deep]);
  });

  it('cuts text with no break at all by tokens', () => {
    const blob = 'x'.repeat(5000);
    const chunks = chunkText(blob, tokenizer, { maxTokensPerChunk: 50, overlapTokens: 0 });
    expect(chunks.join('')).toBe(blob);
    for (const c of chunks) expect(tokenizer.countTokens(c)).toBeLessThanOrEqual(50);
  });

  it('puts the header on top of every chunk, inside the budget', () => {
    const text = Array.from({ length: 40 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkText(text, tokenizer, { maxTokensPerChunk: 60, overlapTokens: 0, chunkHeader: 'Doc: Manual' });
    for (const c of chunks) {
      expect(c.startsWith('Doc: Manual\n')).toBe(true);
      expect(tokenizer.countTokens(c)).toBeLessThanOrEqual(60);
    }
  });

  it('refuses an overlap that leaves no room', () => {
    expect(() => chunkText('x', tokenizer, { maxTokensPerChunk: 10, overlapTokens: 10 })).toThrow();
    try {
      chunkText('x', tokenizer, { maxTokensPerChunk: 0 });
    } catch (e) {
      expect(isKmError(e, 'invalid_argument')).toBe(true);
    }
  });
});
