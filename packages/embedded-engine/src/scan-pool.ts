import { Worker } from 'node:worker_threads';
import { EngineError } from './engine-error.js';
import { SCAN_WORKER_SOURCE } from './scan-worker-source.js';
import { VECTOR_KERNELS_WASM_BASE64 } from './wasm/vector-kernels-binary.js';
import type { VectorKernels, WasmMemory } from './wasm/vector-kernels.js';

/** A kernel a worker can run (see vector-kernels.wat); its results go to the shared memory. */
export type ScanKernel = keyof VectorKernels;

interface ScanTask {
  readonly id: number;
  readonly memory: WasmMemory;
  readonly kernel: ScanKernel;
  readonly args: readonly number[];
  resolve(): void;
  reject(error: Error): void;
}

interface PoolWorker {
  readonly worker: Worker;
  /** Ids of the memories this worker has received (it keeps one kernels instance per memory). */
  readonly memories: Set<number>;
  task: ScanTask | undefined;
  /** The uncaught error it reported before exiting, if any. */
  error: Error | undefined;
  exited: boolean;
}

/**
 * Worker threads that run the SIMD kernels over shared WebAssembly memories, so a scan can be
 * split across cores while the calling thread stays free. Workers start on first use (up to
 * `threads`), each runs one task at a time, and they are `unref`'d while idle: an idle pool never
 * keeps the process alive. A worker that dies rejects its task with a `transient` EngineError and is
 * replaced on the next task; {@link close} rejects every pending task.
 */
export class ScanPool {
  private readonly workers: PoolWorker[] = [];
  private readonly queue: ScanTask[] = [];
  /** Best-effort tasks (prefaulting): they run only when no other task waits. */
  private readonly background: ScanTask[] = [];
  private readonly memoryIds = new WeakMap<WasmMemory, number>();
  private readonly released = new FinalizationRegistry<number>((id) => this.forget(id));
  private nextMemoryId = 1;
  private nextTaskId = 1;
  private closed = false;
  private completed = 0;

  constructor(readonly threads: number) {
    if (!Number.isInteger(threads) || threads < 1)
      throw new EngineError('invalid_argument', `scan threads must be a positive integer, got ${threads}`);
  }

  /** Tasks that finished in a worker (successfully or not), for tests and benchmarks. */
  get tasksRun(): number {
    return this.completed;
  }

  /** Workers currently alive. */
  get liveWorkers(): number {
    return this.workers.length;
  }

  /**
   * Runs `kernel(...args)` in a worker over `memory` (pointers in `args` are byte offsets into it).
   * Resolves once the kernel returned; its output is in the memory. A `background` task (work
   * ahead of need, such as prefaulting) waits until no other task does, so searches and loads
   * never queue behind it.
   */
  run(memory: WasmMemory, kernel: ScanKernel, args: readonly number[], options: { background?: boolean } = {}): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    return new Promise<void>((resolve, reject) => {
      const task: ScanTask = { id: this.nextTaskId++, memory, kernel, args, resolve, reject };
      (options.background ? this.background : this.queue).push(task);
      this.dispatch();
    });
  }

  /** Stops every worker and rejects pending tasks; later `run` calls reject. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const error = closedError();
    for (const task of this.queue.splice(0)) task.reject(error);
    for (const task of this.background.splice(0)) task.reject(error);
    const workers = this.workers.splice(0);
    for (const w of workers) {
      w.task?.reject(error);
      w.task = undefined;
    }
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }

  /** @internal Kills worker `index` as a crash would (tests). */
  async killWorker(index: number): Promise<void> {
    await this.workers[index]?.worker.terminate();
  }

  private dispatch(): void {
    while (this.queue.length > 0 || this.background.length > 0) {
      const w = this.workers.find((x) => x.task === undefined) ?? (this.workers.length < this.threads ? this.spawn() : undefined);
      if (!w) return;
      this.send(w, (this.queue.length > 0 ? this.queue : this.background).shift()!);
    }
  }

  private send(w: PoolWorker, task: ScanTask): void {
    const memoryId = this.idOf(task.memory);
    const first = !w.memories.has(memoryId);
    w.task = task;
    w.worker.ref(); // a running task keeps the process alive until it answers
    try {
      w.worker.postMessage({ id: task.id, memoryId, memory: first ? task.memory : undefined, kernel: task.kernel, args: task.args });
      w.memories.add(memoryId);
    } catch (error) {
      this.settle(w, { id: task.id, error: error instanceof Error ? error.message : String(error) });
    }
  }

  private spawn(): PoolWorker {
    const worker = new Worker(SCAN_WORKER_SOURCE, { eval: true, workerData: { wasm: VECTOR_KERNELS_WASM_BASE64 } });
    worker.unref();
    const w: PoolWorker = { worker, memories: new Set(), task: undefined, error: undefined, exited: false };
    worker.on('message', (message: { id: number; error?: string }) => this.settle(w, message));
    worker.on('error', (error) => {
      w.error = error;
    });
    worker.on('exit', (code) => this.exited(w, code));
    this.workers.push(w);
    return w;
  }

  private settle(w: PoolWorker, message: { id: number; error?: string }): void {
    const task = w.task;
    if (!task || task.id !== message.id) return;
    w.task = undefined;
    w.worker.unref();
    this.completed++;
    if (message.error === undefined) task.resolve();
    else task.reject(new EngineError('invalid_argument', `scan kernel ${task.kernel} failed: ${message.error}`));
    this.dispatch();
  }

  private exited(w: PoolWorker, code: number): void {
    w.exited = true;
    const at = this.workers.indexOf(w);
    if (at < 0) return; // closed
    this.workers.splice(at, 1);
    const task = w.task;
    w.task = undefined;
    if (task) {
      this.completed++;
      const reason = w.error ? `: ${w.error.message}` : '';
      task.reject(
        new EngineError('transient', `scan worker exited with code ${code} while running ${task.kernel}${reason}`, {
          cause: w.error,
          transient: true,
        }),
      );
    }
    this.dispatch(); // replaces it when tasks are waiting
  }

  private idOf(memory: WasmMemory): number {
    let id = this.memoryIds.get(memory);
    if (id === undefined) {
      id = this.nextMemoryId++;
      this.memoryIds.set(memory, id);
      this.released.register(memory, id);
    }
    return id;
  }

  /** The main thread dropped a memory: workers drop their instance of it (and their reference). */
  private forget(id: number): void {
    for (const w of this.workers) {
      if (!w.memories.delete(id) || w.exited) continue;
      w.worker.postMessage({ forget: id });
    }
  }
}

function closedError(): EngineError {
  return new EngineError('aborted', 'the scan pool is closed');
}
