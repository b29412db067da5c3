import { describe, expect, it } from 'vitest';
import { isKmError, MemoryContentStorage, type DataPipeline, type IContentStorage } from '../src/index.js';
import { PipelineStatusStore } from '../src/pipeline/pipeline-status-store.js';

const pipeline = (): DataPipeline =>
  ({
    index: 'docs',
    document_id: 'doc-1',
    execution_id: 'e1',
    steps: ['extract', 'save_records'],
    remaining_steps: ['extract', 'save_records'],
    completed_steps: [],
    files: [],
    tags: {},
    failed: false,
    args: {},
    previous_executions_to_purge: [],
  }) as unknown as DataPipeline;

describe('PipelineStatusStore on a storage with conditional writes', () => {
  it('a worker writing back state that another worker changed since it read it gets write_conflict, and the winner’s state stays', async () => {
    const storage = new MemoryContentStorage();
    const store = new PipelineStatusStore(storage);
    await store.write(pipeline());
    const first = (await store.read('docs', 'doc-1'))!;
    const second = (await store.read('docs', 'doc-1'))!;
    second.completed_steps.push('extract');
    await store.write(second);
    first.failed = true;
    await expect(store.write(first)).rejects.toSatisfy((e: unknown) => isKmError(e, 'write_conflict'));
    const saved = (await store.read('docs', 'doc-1'))!;
    expect(saved.completed_steps).toEqual(['extract']);
    expect(saved.failed).toBe(false);
    // The same object can go on writing: each write moves its version along.
    saved.remaining_steps.shift();
    await store.write(saved);
    saved.completed_steps.push('save_records');
    await store.write(saved);
    expect((await store.read('docs', 'doc-1'))!.completed_steps).toEqual(['extract', 'save_records']);
  });

  it('a new pipeline object returned by a handler takes over the version (carry), so its write still conflicts', async () => {
    const store = new PipelineStatusStore(new MemoryContentStorage());
    await store.write(pipeline());
    const read = (await store.read('docs', 'doc-1'))!;
    const returned = structuredClone(read);
    store.carry(read, returned);
    const other = (await store.read('docs', 'doc-1'))!;
    await store.write(other);
    await expect(store.write(returned)).rejects.toSatisfy((e: unknown) => isKmError(e, 'write_conflict'));
  });

  it('after forget, a pipeline whose state file a deletion step removed can be written back', async () => {
    const storage = new MemoryContentStorage();
    const store = new PipelineStatusStore(storage);
    await store.write(pipeline());
    const read = (await store.read('docs', 'doc-1'))!;
    await storage.deleteDocumentDirectory('docs', 'doc-1');
    await expect(store.write(read)).rejects.toSatisfy((e: unknown) => isKmError(e, 'write_conflict'));
    store.forget(read);
    await store.write(read);
    expect((await store.read('docs', 'doc-1'))!.execution_id).toBe('e1');
  });

  it('writes unconditionally on a storage without them (and for a pipeline it did not read)', async () => {
    const storage = new MemoryContentStorage();
    const plain: IContentStorage = Object.assign(Object.create(storage) as IContentStorage, {
      readFileVersion: undefined,
      writeFileIfVersion: undefined,
    });
    const store = new PipelineStatusStore(plain);
    await store.write(pipeline());
    const first = (await store.read('docs', 'doc-1'))!;
    const second = (await store.read('docs', 'doc-1'))!;
    await store.write(second);
    first.failed = true;
    await store.write(first);
    expect((await store.read('docs', 'doc-1'))!.failed).toBe(true);
  });
});
