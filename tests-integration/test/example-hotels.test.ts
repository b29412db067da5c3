import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const example = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'hotels');

// The README's worked example of typed collections runs as a user runs it
// (`pnpm --filter @km/example-hotels start`); its own assertions fail it on a wrong result.
describe('examples/hotels', () => {
  it('runs offline to the end: upsert embedded by the local model, filtered searches, get, query, delete, a search tool', async () => {
    const { stdout } = await run(process.execPath, ['hotels.mjs'], { cwd: example, timeout: 120_000 });
    expect(stdout).toMatch(/upserted 12 hotels/);
    expect(stdout).toMatch(/get kyo-ryokan with vectors: descriptionEmbedding has \d+ numbers/);
  }, 150_000);
});
