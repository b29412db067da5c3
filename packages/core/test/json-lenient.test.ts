import { describe, expect, it } from 'vitest';
import { JsonDecoder } from '../src/connector.js';
import { inMemoryBuilder } from './helpers.js';

const SETTINGS = `{
  // Where the harbour master keeps the tide tables
  "tideTables": "/srv/tides",
  /* trailing commas, as editors allow */
  "berths": [1, 2, 3,],
}`;

describe('JSON that is not strict JSON is indexed as text, as Kernel Memory indexes .json', () => {
  it('the decoder keeps comments and trailing commas as text, and still pretty-prints strict JSON', async () => {
    const decoder = new JsonDecoder();
    expect((await decoder.decode(Buffer.from(SETTINGS), { fileName: 'settings.json' })).sections[0]!.text).toBe(SETTINGS);
    expect((await decoder.decode(Buffer.from('{"a":1}'))).sections[0]!.text).toBe('{\n  "a": 1\n}');
    expect((await decoder.decode(Buffer.from('{"a":'))).sections[0]!.text).toBe('{"a":');
  });

  it('a settings file with comments is imported and searchable', async () => {
    const memory = inMemoryBuilder().build();
    await memory.importDocument({ name: 'settings.json', data: SETTINGS }, { documentId: 'settings' });
    expect(await memory.getDocumentStatus('settings')).toMatchObject({ completed: true, failed: false });
    const found = await memory.search('harbour master tide tables');
    expect(found.results[0]?.partitions[0]?.text).toContain('harbour master keeps the tide tables');
  });
});
