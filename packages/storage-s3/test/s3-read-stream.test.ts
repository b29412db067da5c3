import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { translatedStream } from '../src/s3-read-stream.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** A body of `total` bytes made 64 KiB at a time, only when asked for; `produced` counts what it made. */
function lazyBody(total: number): { body: Readable; produced: () => number } {
  let produced = 0;
  const body = new Readable({
    read() {
      if (produced >= total) return void this.push(null);
      const chunk = Buffer.alloc(Math.min(64 * KiB, total - produced), produced / (64 * KiB));
      produced += chunk.length;
      this.push(chunk);
    },
  });
  return { body, produced: () => produced };
}

describe('translatedStream', () => {
  it('a slow reader keeps the body paused: at most a few chunks are made ahead of what it has read', async () => {
    const { body, produced } = lazyBody(64 * MiB);
    const out = translatedStream(body, (error) => error as Error);
    let consumed = 0;
    for await (const chunk of out) {
      // What was made and not yet read: both streams' buffers (16 KiB high-water marks) and the chunk in hand.
      expect(produced() - consumed).toBeLessThan(MiB);
      consumed += (chunk as Buffer).length;
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (consumed >= 4 * MiB) break;
    }
    // Pushing the body on without honouring backpressure would have made all 64 MiB by now.
    expect(produced()).toBeLessThan(5 * MiB);
    await new Promise((resolve) => setImmediate(resolve)); // 'close' comes a tick after the loop leaves
    expect(body.destroyed).toBe(true); // leaving the loop early releases the body
  });

  it('passes every byte through in order and ends', async () => {
    const { body } = lazyBody(3 * MiB + 5);
    const chunks: Buffer[] = [];
    for await (const chunk of translatedStream(body, (error) => error as Error)) chunks.push(chunk as Buffer);
    const all = Buffer.concat(chunks);
    expect(all.length).toBe(3 * MiB + 5);
    expect([all[0], all[64 * KiB], all.at(-1)]).toEqual([0, 1, 48]);
  });
});
