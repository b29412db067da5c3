import { describe, expect, it } from 'vitest';
import {
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  type Logger,
  MemoryContentStorage,
  normalizeIndexNameLogged,
  SimpleVectorDb,
} from '../src/index.js';

function recordingLogger(): Logger & { warnings: Array<{ message: string; fields?: Record<string, unknown> }> } {
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const none = () => undefined;
  return { warnings, debug: none, info: none, error: none, warn: (message, fields) => warnings.push({ message, fields }) };
}

describe('index names that normalise alike', () => {
  it('are reported once per name, naming both the name given and the index used', () => {
    const logger = recordingLogger();
    expect(normalizeIndexNameLogged('a b', logger)).toBe('a-b');
    expect(normalizeIndexNameLogged('a/b', logger)).toBe('a-b');
    expect(normalizeIndexNameLogged('a/b', logger)).toBe('a-b');
    expect(normalizeIndexNameLogged('a-b', logger)).toBe('a-b');
    expect(normalizeIndexNameLogged(undefined, logger)).toBe('default');
    expect(logger.warnings.map((w) => w.fields)).toEqual([
      { given: 'a b', index: 'a-b' },
      { given: 'a/b', index: 'a-b' },
    ]);
    expect(logger.warnings[0]!.message).toMatch(/"a b" is used as index "a-b"/);
  });

  it('share one index, with a warning from the memory', async () => {
    const logger = recordingLogger();
    const memory = new KernelMemoryBuilder()
      .withContentStorage(new MemoryContentStorage())
      .withMemoryDb(new SimpleVectorDb())
      .withEmbeddingGenerator(new HashingEmbeddingGenerator())
      .withLogger(logger)
      .build();
    await memory.importText('The Moon orbits the Earth.', { documentId: 'moon', index: 'Space Notes' });
    await memory.importText('Mars has two moons.', { documentId: 'mars', index: 'space/notes' });
    expect(await memory.getDocumentStatus('moon', 'space-notes')).toMatchObject({ index: 'space-notes', completed: true });
    expect(await memory.getDocumentStatus('mars', 'space_notes')).toMatchObject({ index: 'space-notes', completed: true });
    const given = logger.warnings.map((w) => w.fields?.given);
    expect(given).toEqual(expect.arrayContaining(['Space Notes', 'space/notes', 'space_notes']));
    expect(logger.warnings.every((w) => w.fields?.index === 'space-notes')).toBe(true);
  });
});
