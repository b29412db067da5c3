import { describe, expect, it } from 'vitest';
import { parseAnswer } from '../src/views/answer-text.js';

describe('console answer text', () => {
  it('reads an extractive answer into its preamble and quotes, each with the sources it cites', () => {
    const text =
      'No language model is configured, so this answer quotes:\n\n> "The Moon is 384,400 km away." [1, page 3][2]\n> "It orbits in 27.3 days." [2]';
    expect(parseAnswer(text)).toEqual([
      { kind: 'text', text: 'No language model is configured, so this answer quotes:' },
      {
        kind: 'quote',
        text: 'The Moon is 384,400 km away.',
        references: [
          { source: 1, where: 'page 3' },
          { source: 2, where: '' },
        ],
      },
      { kind: 'quote', text: 'It orbits in 27.3 days.', references: [{ source: 2, where: '' }] },
    ]);
  });

  it('keeps a model answer as paragraphs, and a line that only starts with > as text', () => {
    expect(parseAnswer('First line\nsecond line\n\n> not a quote')).toEqual([
      { kind: 'text', text: 'First line\nsecond line' },
      { kind: 'text', text: '> not a quote' },
    ]);
  });
});
