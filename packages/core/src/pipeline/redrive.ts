import { KmError } from '../errors/km-error.js';
import type { DataPipeline } from '../models/data-pipeline.js';
import type { PipelineOrchestrator } from './pipeline-orchestrator.js';
import { ignoreCorruptState } from './pipeline-status-store.js';

/** Which documents {@link redriveDocuments} runs again. */
export interface RedriveOptions {
  /** Only this index (normalised). @default every index */
  index?: string | undefined;
  /** Only this document (needs `index`). @default every document of the index */
  documentId?: string | undefined;
  /**
   * Also documents with steps left whose state has not changed for `stalledAfterMs`: their
   * message was lost or poisoned before the document could be marked failed (a queue that gave
   * up while the pipeline state was unreachable). Off by default: a document waiting its turn in
   * a long backlog looks the same. @default false
   */
  stalled?: boolean | undefined;
  /** With `stalled`: how long without a change makes a document stalled, in ms. @default 1200000 (20 minutes) */
  stalledAfterMs?: number | undefined;
}

/** A document {@link redriveDocuments} ran again: from which step, and why. */
export interface RedrivenDocument {
  index: string;
  documentId: string;
  /** The first step run again (the first not completed). */
  step: string;
  /** `failed`: it had failed (its reason in `error`); `stalled`: it had not changed for `stalledAfterMs`. */
  was: 'failed' | 'stalled';
  /** The failure it had. */
  error?: string;
}

/** What {@link redriveDocuments} did. */
export interface RedriveResult {
  redriven: RedrivenDocument[];
  /** Documents whose state was read. */
  checked: number;
}

/** Default of {@link RedriveOptions.stalledAfterMs}: twice the default retry budget. */
export const DEFAULT_STALLED_AFTER_MS = 20 * 60_000;

/**
 * Runs again, from their last completed step, the documents that failed with steps left (a step
 * that kept failing past the retry budget, a queue that gave up) and, when asked, those that
 * stalled; over queues each goes back on its next step's queue in a new execution (older
 * messages of it become stale), in process it runs at once. Idempotent: a document redriven is
 * no longer failed, so a second call leaves it alone. A document that failed with no step left
 * (a file that could not be decoded) needs a new import instead, and is not touched.
 *
 * ```ts
 * const { redriven } = await redriveDocuments(memory.orchestrator, { index: 'docs' });
 * ```
 */
export async function redriveDocuments(orchestrator: PipelineOrchestrator, options: RedriveOptions = {}): Promise<RedriveResult> {
  if (options.documentId !== undefined && options.index === undefined) {
    throw new KmError('invalid_argument', 'redrive of one document needs its index');
  }
  const stalledAfterMs = options.stalledAfterMs ?? DEFAULT_STALLED_AFTER_MS;
  const storage = orchestrator.context.contentStorage;
  const indexes = options.index !== undefined ? [options.index] : await storage.listIndexes();
  const redriven: RedrivenDocument[] = [];
  let checked = 0;
  for (const index of indexes) {
    const documents = options.documentId !== undefined ? [options.documentId] : await storage.listDocuments(index);
    for (const documentId of documents) {
      const pipeline = await orchestrator.statusStore.read(index, documentId).catch(ignoreCorruptState);
      if (!pipeline) continue;
      checked++;
      const was = redriveReason(pipeline, options.stalled === true, stalledAfterMs, Date.now());
      if (!was) continue;
      const step = pipeline.remaining_steps[0]!;
      await orchestrator.resume(index, documentId);
      redriven.push({ index, documentId, step, was, ...(was === 'failed' && pipeline.error ? { error: pipeline.error } : {}) });
    }
  }
  return { redriven, checked };
}

/** Why a document should run again, or undefined. */
function redriveReason(
  pipeline: DataPipeline,
  stalled: boolean,
  stalledAfterMs: number,
  nowMs: number,
): RedrivenDocument['was'] | undefined {
  if (pipeline.remaining_steps.length === 0) return undefined;
  if (pipeline.failed) return 'failed';
  const changed = Date.parse(pipeline.last_update);
  return stalled && Number.isFinite(changed) && nowMs - changed >= stalledAfterMs ? 'stalled' : undefined;
}
