import { describe, expect, it } from 'vitest';
import { CL100KTokenizer } from '../src/index.js';
import { breadcrumb, MAX_BREADCRUMB_CHARS } from '../src/text-chunker/breadcrumb.js';
import { HeadingPath } from '../src/text-chunker/heading-path.js';
import { chunkWithContext } from '../src/text-chunker/text-chunker.js';

const tokenizer = new CL100KTokenizer();
const paragraph = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `The ${topic} rule number ${i} applies to every employee in detail.`).join(' ');

const HANDBOOK = [
  '# Employee handbook',
  paragraph('welcome', 6),
  '## Leave',
  paragraph('leave', 6),
  '### Parental leave',
  paragraph('parental', 30),
].join('\n\n');

describe('chunk context (breadcrumb)', () => {
  it('gives the chunks of later sections the title and the headings they lie under', () => {
    const chunks = chunkWithContext(HANDBOOK, tokenizer, { maxTokensPerChunk: 200, overlapTokens: 0, markdown: true });
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks[0]).toEqual({ text: `# Employee handbook\n\n${paragraph('welcome', 6)}` });
    expect(chunks[1]).toEqual({ text: `Employee handbook\n\n## Leave\n\n${paragraph('leave', 6)}`, context: 'Employee handbook' });
    expect(chunks[2]!.context).toBe('Employee handbook › Leave');
    expect(chunks[2]!.text.startsWith('Employee handbook › Leave\n\n### Parental leave\n\n')).toBe(true);
    // A chunk inside the section (not opening with its heading) names the section too.
    expect(chunks[3]!.context).toBe('Employee handbook › Leave › Parental leave');
    expect(chunks[3]!.text.startsWith('Employee handbook › Leave › Parental leave\n\nThe parental rule')).toBe(true);
  });

  it('puts the title first, once, and never repeats what the chunk opens with', () => {
    const chunks = chunkWithContext(HANDBOOK, tokenizer, {
      maxTokensPerChunk: 200,
      overlapTokens: 0,
      markdown: true,
      title: 'Employee handbook',
    });
    expect(chunks[0]!.context).toBeUndefined();
    expect(chunks[1]!.context).toBe('Employee handbook');
    expect(chunks.every((c) => !c.context?.includes('Employee handbook › Employee handbook'))).toBe(true);
    const other = chunkWithContext('# Leave\n\nTen days a year.', tokenizer, { markdown: true, title: 'ACME handbook' });
    expect(other).toEqual([{ text: 'ACME handbook\n\n# Leave\n\nTen days a year.', context: 'ACME handbook' }]);
  });

  it('has no context without a title or headings', () => {
    const chunks = chunkWithContext(paragraph('plain', 40), tokenizer, { maxTokensPerChunk: 100, overlapTokens: 10 });
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) expect(c).toEqual({ text: c.text });
  });

  it('counts the context in the chunk budget', () => {
    const title = 'The annual report of the regional office of the international organisation for standards';
    for (const max of [60, 120, 300]) {
      const chunks = chunkWithContext(HANDBOOK, tokenizer, { maxTokensPerChunk: max, overlapTokens: 10, markdown: true, title });
      // Under 1/4 of the budget a context is left out, as it would crowd out the text.
      if (max > 60) expect(chunks.filter((c) => c.context?.startsWith(title)).length).toBeGreaterThan(2);
      for (const c of chunks) expect(tokenizer.countTokens(c.text)).toBeLessThanOrEqual(max);
    }
    const header = chunkWithContext(HANDBOOK, tokenizer, {
      maxTokensPerChunk: 120,
      overlapTokens: 10,
      markdown: true,
      title,
      chunkHeader: 'Source: HR',
    });
    for (const c of header) {
      expect(c.text.startsWith(c.context ? `${c.context}\n\nSource: HR\n` : 'Source: HR\n')).toBe(true);
      expect(tokenizer.countTokens(c.text)).toBeLessThanOrEqual(120);
    }
  });

  it('goes on under the headings of an earlier section (the page before)', () => {
    const headings = new HeadingPath();
    chunkWithContext(
      '## Sheet: Capitals\n\nCountry: France\nCapital: Paris',
      tokenizer,
      { markdown: true, title: 'countries.xlsx' },
      headings,
    );
    const next = chunkWithContext('Country: Japan\nCapital: Tokyo', tokenizer, { markdown: true, title: 'countries.xlsx' }, headings);
    expect(next[0]!.context).toBe('countries.xlsx › Sheet: Capitals');
  });

  it('reads no heading inside a code fence', () => {
    const text = '# Setup\n\n```sh\n# install\nnpm i\n```\n\n' + paragraph('setup', 30);
    const chunks = chunkWithContext(text, tokenizer, { maxTokensPerChunk: 120, overlapTokens: 0, markdown: true });
    expect(chunks.slice(1).map((c) => c.context)).toEqual(chunks.slice(1).map(() => 'Setup'));
  });
});

describe('breadcrumb', () => {
  it('leaves out empty parts, repeats and the opening line', () => {
    expect(breadcrumb(['Handbook', 'Handbook', ' Leave ', ''])).toBe('Handbook › Leave');
    expect(breadcrumb(['Handbook', 'Leave'], '## leave')).toBe('Handbook');
    expect(breadcrumb(['Handbook'], '# Handbook')).toBeUndefined();
    expect(breadcrumb([])).toBeUndefined();
  });

  it('keeps the first and innermost parts of a long path, within the cap', () => {
    const parts = ['Handbook', ...Array.from({ length: 8 }, (_, i) => `Chapter ${i} with a rather long descriptive name`)];
    const line = breadcrumb(parts)!;
    expect(line.length).toBeLessThanOrEqual(MAX_BREADCRUMB_CHARS);
    expect(line.startsWith('Handbook › … › ')).toBe(true);
    expect(line.endsWith('Chapter 7 with a rather long descriptive name')).toBe(true);
    expect(breadcrumb(['x'.repeat(500)])!.length).toBe(MAX_BREADCRUMB_CHARS);
  });
});
