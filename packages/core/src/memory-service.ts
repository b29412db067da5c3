import { MemoryServerless } from './memory-serverless.js';
import type { DistributedPipelineOrchestrator, OrchestratorStartOptions } from './pipeline/distributed-orchestrator.js';

/**
 * Kernel Memory with asynchronous ingestion: an import returns once its files are stored and
 * its first step is queued; `getDocumentStatus` and `isDocumentReady` tell when it is done.
 * Build one with `KernelMemoryBuilder.buildService()`; the HTTP service is built on it.
 *
 * Records an embedded memory DB loses to a torn log tail (a crash mid-write) are restored once
 * started: see `recoverLostRecords` of the orchestrator (each loss is handled once, restarts
 * included).
 *
 * ```ts
 * const memory = new KernelMemoryBuilder().withDataDirectory('./km-data').buildService();
 * await memory.start();                      // consume the queues in this process
 * const id = await memory.importText('Pluto is a dwarf planet.');
 * while (!(await memory.isDocumentReady(id))) await new Promise((r) => setTimeout(r, 100));
 * await memory.stop();
 * ```
 */
export class MemoryService extends MemoryServerless {
  declare readonly orchestrator: DistributedPipelineOrchestrator;

  /** Connects the queues; with `runHandlers` (the default) this process runs the steps too. */
  async start(options: OrchestratorStartOptions = {}): Promise<void> {
    await this.orchestrator.start(options);
    this.watchRecordLosses();
  }

  /** Finishes the steps in progress (up to `drainTimeoutMs`), hands the rest back to the queues. */
  stop(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    this.unwatchRecordLosses();
    return this.orchestrator.stop(options);
  }
}
