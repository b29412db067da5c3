import { beforeAll, describe, expect, it } from 'vitest';
import { importTexts, useTestService } from './helpers.js';

interface Chunk {
  streamState: string;
  text: string;
  noResult: boolean;
  relevantSources: Array<{ link: string; documentId: string }>;
}

/** Reads a server-sent-events answer up to `data: [DONE]`. */
async function readSse(res: Response): Promise<Chunk[]> {
  const events = (await res.text()).split('\n\n').filter((e) => e.startsWith('data: '));
  expect(events.at(-1)).toBe('data: [DONE]');
  return events.slice(0, -1).map((e) => JSON.parse(e.slice(6)) as Chunk);
}

describe('streamed answers over HTTP (server-sent events)', () => {
  const service = useTestService({ disposeTimeoutMs: 30_000 });
  beforeAll(() =>
    importTexts(service().url, 'sky', {
      moon: 'The Moon orbits the Earth at an average distance of 384,400 km. It takes about 27 days to orbit once.',
      tides: 'Tides on Earth are caused mostly by the Moon. The Moon pulls the oceans as it orbits the Earth.',
    }),
  );

  it('lists each source in one chunk only, so KM clients that merge chunks list it once', async () => {
    const res = await fetch(`${service().url}/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ index: 'sky', question: 'How does the Moon orbit the Earth?', stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const chunks = await readSse(res);
    expect(chunks[0]!.streamState).toBe('reset');
    expect(chunks.at(-1)!.streamState).toBe('last');
    // What KM's client does: concatenate the text, append the sources of every chunk.
    const merged = chunks.flatMap((c) => c.relevantSources.map((s) => s.link));
    expect(merged.length).toBeGreaterThan(0);
    expect(new Set(merged).size).toBe(merged.length);
    expect(chunks.filter((c) => c.relevantSources.length > 0)).toHaveLength(1);

    // The same sources as the JSON answer.
    const json = (await (
      await fetch(`${service().url}/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ index: 'sky', question: 'How does the Moon orbit the Earth?' }),
      })
    ).json()) as Chunk;
    expect(json.relevantSources.map((s) => s.link).sort()).toEqual([...merged].sort());
    expect(chunks.map((c) => c.text).join('')).toBe(json.text);
  });
});
