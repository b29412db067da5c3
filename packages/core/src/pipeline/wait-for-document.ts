import { KmError } from '../errors/km-error.js';
import { isStatusReady, statusFailure, type DataPipelineStatus } from '../models/data-pipeline.js';
import { pollUntil } from '../util/poll-until.js';

/** Options of `waitForDocument`, in process and over HTTP. */
export interface WaitForDocumentOptions {
  index?: string;
  /** @default 300000 */
  timeoutMs?: number;
  /** @default 200 in process, 500 over HTTP */
  pollIntervalMs?: number;
  /** Told about every status read, e.g. to draw a progress bar. */
  onStatus?: (status: DataPipelineStatus) => void;
  signal?: AbortSignal;
}

/**
 * Reads a document's status until it is ready: rejects with `pipeline_failed` (naming each
 * failed file and its reason, also for services that report such a document `completed`)
 * when it failed, and `aborted` at the time limit or when `signal` aborts.
 */
export async function waitForDocumentStatus(
  documentId: string,
  readStatus: () => Promise<DataPipelineStatus | null>,
  options: WaitForDocumentOptions,
  defaultPollIntervalMs: number,
): Promise<DataPipelineStatus> {
  return pollUntil(
    async () => {
      const status = await readStatus();
      if (!status) return undefined;
      options.onStatus?.(status);
      const failure = statusFailure(status);
      if (failure !== undefined) throw new KmError('pipeline_failed', `document "${documentId}" failed: ${failure}`);
      return isStatusReady(status) ? status : undefined;
    },
    () => new KmError('aborted', `document "${documentId}" was not ready in time`),
    {
      timeoutMs: options.timeoutMs ?? 300_000,
      intervalMs: options.pollIntervalMs ?? defaultPollIntervalMs,
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
}
