import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '@km/service/testing';
import { MemoryWebClient, MemoryWebClientError } from '../src/index.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ logLevel: 'warn' });
});
afterAll(() => service.dispose());

/** A client whose requests to the real service are recorded (their JSON bodies). */
function recordingClient(): { memory: MemoryWebClient; bodies: Record<string, unknown>[] } {
  const bodies: Record<string, unknown>[] = [];
  const recording: typeof fetch = (input, init) => {
    if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body) as Record<string, unknown>);
    return fetch(input, init);
  };
  return { memory: new MemoryWebClient(service.url, { fetch: recording }), bodies };
}

describe('MemoryWebClient mode, fusion and rerank', () => {
  it('sends them when given, on search and ask', async () => {
    const { memory, bodies } = recordingClient();
    const fields = { mode: 'vector', fusion: { method: 'weighted', vectorWeight: 0.7 }, rerank: false } as const;
    await memory.search('moon', { index: 'sky', ...fields, minRelevance: 0.2 });
    await memory.ask('moon?', { index: 'sky', ...fields });
    expect(bodies[0]).toMatchObject({ query: 'moon', minRelevance: 0.2, ...fields });
    expect(bodies[1]).toMatchObject({ question: 'moon?', ...fields });
  });

  it('omits them (and an absent minRelevance) otherwise, so Kernel Memory servers are sent only what they know', async () => {
    const { memory, bodies } = recordingClient();
    await memory.search('moon', { index: 'sky' });
    await memory.ask('moon?');
    for await (const _ of memory.askStreaming('moon?')) {
      // drain
    }
    for (const body of bodies) {
      expect(body).not.toHaveProperty('mode');
      expect(body).not.toHaveProperty('fusion');
      expect(body).not.toHaveProperty('rerank');
      expect(body).not.toHaveProperty('minRelevance');
    }
    expect(bodies).toHaveLength(3);
  });

  it('the service checks them: a wrong value is a typed 400 naming the field', async () => {
    const { memory } = recordingClient();
    const error = await memory.search('moon', { mode: 'fuzzy' as 'vector' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryWebClientError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_argument', message: expect.stringContaining("'mode'") });
    await expect(memory.ask('moon?', { rerank: 'yes' as 'mmr' })).rejects.toMatchObject({ status: 400, code: 'invalid_argument' });
  });
});

describe('MemoryWebClient search modes against the km service', () => {
  it("mode 'lexical' finds by a word the hashing embeddings rank second; rerank 'mmr' keeps every result", async () => {
    const memory = new MemoryWebClient(service.url);
    await memory.importText(
      'The report of the team is on the table of the office, and the notes of the meeting are in the folder of the manager.',
      {
        documentId: 'filler',
        index: 'words',
      },
    );
    await memory.importText('Error zorblax appears when the disk quota is exceeded; free some space and retry.', {
      documentId: 'code',
      index: 'words',
    });
    for (const id of ['filler', 'code']) await memory.waitForDocument(id, { index: 'words', pollIntervalMs: 30 });
    const byVector = await memory.search('what is the zorblax', { index: 'words', mode: 'vector' });
    expect(byVector.results.map((r) => r.documentId)).toEqual(['filler', 'code']);
    // No mode: the default, hybrid, puts the passage holding the word first.
    const byDefault = await memory.search('what is the zorblax', { index: 'words' });
    expect(byDefault.results[0]?.documentId).toBe('code');
    const byWords = await memory.search('what is the zorblax', { index: 'words', mode: 'lexical' });
    expect(byWords.results.map((r) => r.documentId)).toEqual(['code']);
    const diverse = await memory.search('what is the zorblax', { index: 'words', rerank: 'mmr' });
    expect(diverse.results).toHaveLength(2);
  });
});
