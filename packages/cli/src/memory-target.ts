import type { DataPipelineStatus, IKernelMemory, RedriveOptions, RedriveResult, SyncOptions, SyncReport, SyncSource } from '@km/core';
import { MemoryWebClient } from '@km/client';
import type { CliIo } from './cli-context.js';

/** Options every data command takes. */
export interface TargetOptions {
  /** A service URL; without one, km works on the data folder in this process. */
  url?: string;
  /** Access key for the service (default: KM_API_KEY). */
  key?: string;
  dataDir?: string;
  config?: string;
}

/** A memory to run commands against, and how to follow and close it. */
export interface MemoryTarget {
  memory: IKernelMemory;
  /** True when the pipeline runs in this process (local mode). */
  local: boolean;
  status(documentId: string, index?: string): Promise<DataPipelineStatus | null>;
  /** Runs failed (and, when asked, stalled) documents again from their last completed step. */
  redrive(options: RedriveOptions): Promise<RedriveResult>;
  /** Local mode: syncs a source into the memory of the data folder, in this process. */
  sync?(source: SyncSource, options: SyncOptions): Promise<SyncReport>;
  /** Local mode: web syncs may reach private addresses (KM_WEB_ALLOW_PRIVATE_NETWORKS, as web imports). */
  allowPrivateNetworks?: boolean;
  /** Remote mode: the service's client (sync jobs). */
  client?: MemoryWebClient;
  close(): Promise<void>;
}

/**
 * The service at `--url`, or (without it) the memory of the data folder in this process,
 * configured like the service (KM_CONFIG, KM_* variables). Local mode must not share its
 * data folder with a running service: both would write the same vector files.
 */
export async function openTarget(
  options: TargetOptions,
  io: Pick<CliIo, 'stderr' | 'env'> = { stderr: process.stderr, env: process.env },
): Promise<MemoryTarget> {
  if (options.url) {
    const key = options.key ?? io.env.KM_API_KEY;
    const client = new MemoryWebClient(options.url, key ? { apiKey: key } : {});
    return {
      memory: client,
      local: false,
      status: (id, index) => client.getDocumentStatus(id, index),
      redrive: (redrive) => client.redrive(redrive),
      client,
      close: async () => undefined,
    };
  }
  // Local mode is a worker of the data folder that this command also calls into. The service's
  // code loads here: with --url, a command needs only the client.
  const { startWorker } = await import('@km/service');
  const worker = await startWorker({
    ...(options.config ? { configFile: options.config } : {}),
    env: io.env,
    overrides: {
      logLevel: (io.env.KM_LOG_LEVEL as 'warn' | undefined) ?? 'warn',
      ...(options.dataDir ? { dataDirectory: options.dataDir } : {}),
    },
    logDestination: io.stderr,
  });
  const { memory } = worker;
  return {
    memory,
    local: true,
    status: (id, index) => memory.getDocumentStatus(id, index),
    redrive: (redrive) => memory.redrive(redrive),
    sync: (source, options) => memory.sync(source, options),
    allowPrivateNetworks: worker.config.web.allowPrivateNetworks,
    close: worker.close,
  };
}
