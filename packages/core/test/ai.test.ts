import { describe, expect, it } from 'vitest';
import { CL100KTokenizer, HashingEmbeddingGenerator } from '../src/index.js';
import { cosineSimilarity, l2norm } from '../src/connector.js';

describe('HashingEmbeddingGenerator', () => {
  const g = new HashingEmbeddingGenerator();

  it('is deterministic and L2-normalised', async () => {
    const [a, b] = await g.generateEmbeddings(['The Moon orbits Earth', 'The Moon orbits Earth']);
    expect(Array.from(a!)).toEqual(Array.from(b!));
    expect(a!.length).toBe(384);
    expect(l2norm(a!)).toBeCloseTo(1, 5);
  });

  it('texts sharing words score higher than unrelated ones', async () => {
    const [q, near, far] = await g.generateEmbeddings([
      'distance from the Earth to the Moon',
      'The Moon is about 384,400 km from Earth',
      'Carbon is a chemical element with atomic number six',
    ]);
    expect(cosineSimilarity(q!, near!)).toBeGreaterThan(cosineSimilarity(q!, far!) + 0.1);
  });

  it('an empty text gives the zero vector', async () => {
    const [v] = await g.generateEmbeddings(['']);
    expect(l2norm(v!)).toBe(0);
  });
});

describe('CL100KTokenizer', () => {
  it('counts and splits tokens so that they join back to the text', () => {
    const t = new CL100KTokenizer();
    expect(t.countTokens('hello world')).toBe(2);
    expect(t.getTokens('Tokenizers split words.').join('')).toBe('Tokenizers split words.');
  });

  it('counts special-token markers in user text as plain text instead of throwing', () => {
    const t = new CL100KTokenizer();
    const text = 'before <|endoftext|> after';
    expect(t.countTokens(text)).toBeGreaterThan(3);
    expect(t.getTokens(text).join('')).toBe(text);
  });
});
