import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import {
  HashingEmbeddingGenerator,
  InMemoryQueue,
  InMemoryQueueBroker,
  KernelMemoryBuilder,
  SimpleVectorDb,
  silentLogger,
  type MemoryRecord,
  type MemoryServerless,
} from '../src/index.js';
import type { RecordLoss } from '../src/connector.js';
import { RecordLossNotifier } from '../src/memory-storage/record-loss.js';
import { allRecords, cleanupAfterTests, waitUntilCompleted } from './helpers.js';

/** An in-memory vector DB whose torn-tail losses the test reports (and whose records it drops). */
class LossyDb extends SimpleVectorDb {
  private readonly notifier = new RecordLossNotifier(silentLogger);

  override onRecordsLost(listener: (loss: RecordLoss) => void): () => void {
    return this.notifier.onRecordsLost(listener);
  }

  /** Drops the records (as a cut log tail would) and reports the loss. */
  async lose(recordIds: string[], index = 'default'): Promise<void> {
    for (const id of recordIds) await this.delete(index, { id });
    this.notifier.report({ connector: 'test', index, recordIds, bytes: 100 });
  }
}

const { dirs, services } = cleanupAfterTests();

/** Holds the messages of the `extract` queue while closed. */
class Gate {
  private opened: Promise<void> = Promise.resolve();
  private release: () => void = () => undefined;
  close(): void {
    this.opened = new Promise((resolve) => (this.release = resolve));
  }
  open(): void {
    this.release();
  }
  wait(): Promise<void> {
    return this.opened;
  }
}

async function builder(gate?: Gate) {
  const dir = await mkdtemp(join(tmpdir(), 'km-recovery-'));
  dirs.push(dir);
  const db = new LossyDb();
  const broker = new InMemoryQueueBroker();
  const build = new KernelMemoryBuilder()
    .withDataDirectory(dir)
    .withMemoryDb(db)
    .withEmbeddingGenerator(new HashingEmbeddingGenerator())
    .withPartitionOptions({ maxTokensPerChunk: 20, overlapTokens: 0 })
    .withLogger(silentLogger)
    .withQueueFactory((step) => {
      const queue = new InMemoryQueue({ broker, retryDelayMs: 5 });
      if (gate && step === 'extract') {
        const onDequeue = queue.onDequeue.bind(queue);
        queue.onDequeue = (handler) => onDequeue(async (message) => (await gate.wait(), handler(message)));
      }
      return queue;
    });
  return { db, build };
}

async function service(gate?: Gate) {
  const { db, build } = await builder(gate);
  const memory = build.buildService();
  services.push(memory);
  await memory.start();
  return { db, memory };
}

async function serverless(): Promise<{ db: LossyDb; memory: MemoryServerless }> {
  const { db, build } = await builder();
  return { db, memory: build.build() };
}

const LONG = Array.from({ length: 12 }, (_, i) => `Sentence ${i} tells about glaciers, fjords and moraines in valley ${i}.`).join(' ');
const ids = async (db: LossyDb, documentId: string) =>
  (await allRecords(db))
    .map((r) => r.id)
    .filter((id) => id.startsWith(`d=${documentId}//`))
    .sort();
const completed = (memory: MemoryServerless, id: string) => waitUntilCompleted(memory, id, 10);

describe('records lost to a torn log tail', () => {
  it('are not re-saved once delete_generated_files ran: the document is failed, its other records stay', async () => {
    const { db, memory } = await service();
    const steps = ['extract', 'partition', 'gen_embeddings', 'save_records', 'delete_generated_files'];
    await memory.importText(LONG, { documentId: 'doc', steps });
    await completed(memory, 'doc');
    const before = await ids(db, 'doc');
    expect(before.length).toBeGreaterThan(1);

    await db.lose([before[0]!]);
    await vi.waitFor(async () => expect((await memory.getDocumentStatus('doc'))?.failed).toBe(true), { timeout: 10_000, interval: 10 });
    expect((await memory.getDocumentStatus('doc'))?.error).toMatch(/records lost to a torn log tail; re-import/);
    expect(await ids(db, 'doc')).toEqual(before.slice(1));
  });

  it('save_records never purges every record when it finds no partition after a save (delete_generated_files between two saves)', async () => {
    const { db, memory } = await serverless();
    const steps = ['extract', 'partition', 'gen_embeddings', 'save_records', 'delete_generated_files', 'save_records'];
    await memory.importText(LONG, { documentId: 'doc', steps });
    expect((await ids(db, 'doc')).length).toBeGreaterThan(1);
  });

  it('reported while an import of the same document is under way do not lose the import', async () => {
    const gate = new Gate();
    const { db, memory } = await service(gate);
    await memory.importText('Version one talks about glaciers.', { documentId: 'doc' });
    await completed(memory, 'doc');
    const lost = await ids(db, 'doc');

    // The recovery's status read (the first one after the loss) returns what it read, but only
    // once a re-import of the document was saved and queued, or could not be (it waits for the
    // lock). The re-import's first step waits until the recovery is done.
    gate.close();
    const store = memory.orchestrator.statusStore;
    const read = store.read.bind(store);
    let armed = true;
    let reimport: Promise<string> | undefined;
    store.read = async (index, documentId) => {
      const status = await read(index, documentId);
      if (armed && documentId === 'doc') {
        armed = false;
        reimport = memory.importText('Version two talks about volcanoes.', { documentId: 'doc' });
        await Promise.race([reimport, sleep(300)]);
      }
      return status;
    };
    await db.lose(lost);
    await vi.waitFor(() => expect(reimport).toBeDefined(), { timeout: 5_000, interval: 5 });
    await reimport;
    store.read = read;
    await sleep(200);
    gate.open();

    await vi.waitFor(
      async () => {
        expect(await memory.getDocumentStatus('doc')).toMatchObject({ completed: true, failed: false });
        const texts = (await allRecords(db)).map((r) => String(r.payload.text));
        expect(texts).toEqual([expect.stringContaining('Version two')]);
      },
      { timeout: 5_000, interval: 10 },
    );
  });

  it('keep save_records among the steps of a document still on its way, in the same execution', async () => {
    const { memory } = await serverless();
    const orchestrator = memory.orchestrator;
    await memory.importText(LONG, { documentId: 'doc', steps: ['extract', 'partition', 'gen_embeddings', 'save_records'] });
    // As if it stopped before a second save_records and a cleanup (KM's summary pipeline shape).
    const pipeline = (await orchestrator.statusStore.read('default', 'doc'))!;
    pipeline.remaining_steps = ['summarize', 'delete_generated_files'];
    pipeline.completed_steps = ['extract', 'partition', 'gen_embeddings', 'save_records'];
    pipeline.steps = [...pipeline.completed_steps, ...pipeline.remaining_steps];
    await orchestrator.statusStore.write(pipeline);

    expect(await orchestrator.recoverLostRecords!('default', 'doc')).toBe('pending');
    const after = (await orchestrator.statusStore.read('default', 'doc'))!;
    expect(after.execution_id).toBe(pipeline.execution_id);
    expect(after.remaining_steps).toEqual(['summarize', 'save_records', 'delete_generated_files']);
    expect(after.files.every((f) => !f.processed_by.includes('save_records'))).toBe(true);
  });

  it('of a deleted document are deleted, not brought back (a cut deletion)', async () => {
    const { db, memory } = await serverless();
    await memory.importText(LONG, { documentId: 'gone' });
    await memory.importText('Another document about deserts.', { documentId: 'kept' });
    const records: MemoryRecord[] = [];
    for await (const r of db.getList('default', { limit: 0, withEmbeddings: true })) if (r.id.startsWith('d=gone//')) records.push(r);
    await memory.deleteDocument('gone');
    // The deletion's log entries were cut: the records came back on load.
    for (const record of records) await db.upsert('default', record);
    await db.lose([]);
    await db.lose([records[0]!.id]);
    await vi.waitFor(async () => expect(await ids(db, 'gone')).toEqual([]), { timeout: 5_000, interval: 10 });
    expect(await ids(db, 'kept')).toHaveLength(1);
    expect(await memory.getDocumentStatus('gone')).toBeNull();
  });

  it('are restored in process by MemoryServerless', async () => {
    const { db, memory } = await serverless();
    await memory.importText(LONG, { documentId: 'doc' });
    const before = await ids(db, 'doc');
    await db.lose(before.slice(0, 2));
    expect(await ids(db, 'doc')).toEqual(before.slice(2));
    await vi.waitFor(async () => expect(await ids(db, 'doc')).toEqual(before), { timeout: 5_000, interval: 10 });
    await completed(memory, 'doc');
  });

  it('are handled once: restarting a MemoryService does not handle past losses again', async () => {
    const { db, memory } = await service();
    await memory.importText(LONG, { documentId: 'doc' });
    await completed(memory, 'doc');
    await db.lose([(await ids(db, 'doc'))[0]!]);
    const first = (await memory.orchestrator.statusStore.read('default', 'doc'))!.execution_id;
    await vi.waitFor(async () => expect((await memory.orchestrator.statusStore.read('default', 'doc'))!.execution_id).not.toBe(first), {
      timeout: 5_000,
      interval: 10,
    });
    await completed(memory, 'doc');
    const restored = (await memory.orchestrator.statusStore.read('default', 'doc'))!.execution_id;

    await memory.stop();
    const writes = vi.spyOn(memory.orchestrator.statusStore, 'write');
    await memory.start(); // subscribes again: the notifier replays every past loss
    await sleep(100);
    expect(writes).not.toHaveBeenCalled();
    expect((await memory.orchestrator.statusStore.read('default', 'doc'))!.execution_id).toBe(restored);
  });
});

describe('exportFile', () => {
  it('reports the type detected at import for a file without extension', async () => {
    const { memory } = await serverless();
    const html = '<!DOCTYPE html><html><body><p>Glaciers carve fjords.</p></body></html>';
    await memory.importDocument({ name: 'page', data: Buffer.from(html) }, { documentId: 'doc' });
    const file = await memory.exportFile('doc', 'page');
    expect(file.fileType).toBe('text/html');
  });
});
