import { mkdtemp, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SimpleTextDb, SimpleVectorDb, type IMemoryDb, type Logger } from '../src/index.js';
import { documentIdsOf, type RecordLoss, type RecordLossSource } from '../src/connector.js';
import { allRecords } from './helpers.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function capture(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
}

const stores: Record<string, (directory: string, logger: Logger) => IMemoryDb & RecordLossSource & { close(): Promise<void> }> = {
  SimpleVectorDb: (directory, logger) => new SimpleVectorDb({ directory, durable: false, logger }),
  SimpleTextDb: (directory, logger) => new SimpleTextDb({ directory, durable: false, logger }),
};
const record = (documentId: string, part: string, text: string) => ({
  id: `d=${documentId}//p=${part}`,
  vector: [1, 0.5, 0.25],
  tags: { __document_id: [documentId] },
  payload: { text },
});

describe.each(Object.keys(stores))('%s: a torn log tail', (kind) => {
  it('is reported with the ids of the records whose last write it cut (upserts and deletes)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'km-torn-report-'));
    dirs.push(dir);
    const first = stores[kind]!(dir, capture());
    await first.upsertBatch!('docs', [record('kept', '1', 'kept text'), record('gone', '1', 'gone text')]);
    await first.upsertBatch!('docs', [
      record('cut', '1', 'a record whose write is torn'),
      record('cut', '2', 'another one in the same write'),
    ]);
    await first.close();
    const log = join(dir, 'docs', 'records.log');
    await truncate(log, (await stat(log)).size - 7);

    const logger = capture();
    const second = stores[kind]!(dir, logger);
    const losses: RecordLoss[] = [];
    second.onRecordsLost((loss) => losses.push(loss));
    expect((await allRecords(second, 'docs')).map((r) => r.id).sort()).toEqual(['d=cut//p=1', 'd=gone//p=1', 'd=kept//p=1']);
    expect(losses).toEqual([
      { connector: expect.any(String), index: 'docs', recordIds: ['d=cut//p=2'], documentIds: ['cut'], bytes: expect.any(Number) },
    ]);
    expect(logger.warnings).toEqual([
      expect.stringMatching(/index "docs": cut a torn log tail of \d+ bytes.*records dropped: d=cut\/\/p=2$/),
    ]);

    // A deletion cut short is reported too: the record it removed is back.
    await second.delete('docs', { id: 'd=gone//p=1' });
    await second.close();
    await truncate(log, (await stat(log)).size - 1); // the closing brace: the entry is torn, its id still readable
    const third = stores[kind]!(dir, capture());
    const later: RecordLoss[] = [];
    third.onRecordsLost((loss) => later.push(loss));
    await allRecords(third, 'docs');
    expect(later.map((l) => l.recordIds)).toEqual([['d=gone//p=1']]);
    await third.close();
  });
});

describe('documentIdsOf', () => {
  it('reads the document of km record ids once each, and skips other ids', () => {
    expect(documentIdsOf(['d=a//p=1', 'd=a//p=2', 'd=b//c//p=3', 'custom-id'])).toEqual(['a', 'b//c']);
  });
});
