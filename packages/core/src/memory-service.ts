import { Steps } from './models/constants.js';
import { MemoryServerless } from './memory-serverless.js';
import { isRecordLossSource, type RecordLoss } from './memory-storage/record-loss.js';
import type { DistributedPipelineOrchestrator, OrchestratorStartOptions } from './pipeline/distributed-orchestrator.js';

/**
 * Kernel Memory with asynchronous ingestion: an import returns once its files are stored and
 * its first step is queued; `getDocumentStatus` and `isDocumentReady` tell when it is done.
 * Build one with `KernelMemoryBuilder.buildService()`; the HTTP service is built on it.
 *
 * Records an embedded memory DB loses to a torn log tail (a crash mid-write) are restored:
 * `save_records` runs again for their documents, from the embeddings stored with them.
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
  private unsubscribe: Array<() => void> = [];

  /** Connects the queues; with `runHandlers` (the default) this process runs the steps too. */
  async start(options: OrchestratorStartOptions = {}): Promise<void> {
    await this.orchestrator.start(options);
    if (this.unsubscribe.length > 0) return;
    for (const db of this.orchestrator.context.memoryDbs) {
      if (isRecordLossSource(db)) this.unsubscribe.push(db.onRecordsLost((loss) => void this.restoreLostRecords(loss)));
    }
  }

  /** Finishes the steps in progress (up to `drainTimeoutMs`), hands the rest back to the queues. */
  stop(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
    return this.orchestrator.stop(options);
  }

  /**
   * Queues `save_records` again for each document of a loss whose records were saved already
   * (a document still on its way saves them anyway); never throws.
   */
  private async restoreLostRecords(loss: RecordLoss): Promise<void> {
    const { logger } = this.orchestrator.context;
    for (const documentId of loss.documentIds) {
      try {
        const pipeline = await this.orchestrator.statusStore.read(loss.index, documentId);
        if (!pipeline || !pipeline.completed_steps.includes(Steps.saveRecords)) continue;
        pipeline.completed_steps = pipeline.completed_steps.filter((s) => s !== Steps.saveRecords);
        pipeline.remaining_steps = [Steps.saveRecords, ...pipeline.remaining_steps.filter((s) => s !== Steps.saveRecords)];
        for (const file of pipeline.files) file.processed_by = file.processed_by.filter((s) => s !== Steps.saveRecords);
        pipeline.previous_executions_to_purge = [];
        await this.orchestrator.statusStore.write(pipeline);
        await this.orchestrator.resume(loss.index, documentId);
        logger.warn('records lost to a torn log tail: save_records queued again', { index: loss.index, documentId });
      } catch (error) {
        logger.error('could not queue save_records for records lost to a torn log tail', {
          index: loss.index,
          documentId,
          error: (error as Error).message,
        });
      }
    }
  }
}
