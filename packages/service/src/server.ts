import type { FastifyInstance } from 'fastify';
import type pino from 'pino';
import type { KernelMemoryBuilder, MemoryService } from '@km/core';
import { createApp } from './app.js';
import { removeStaleSpool, uploadSpoolDirectory } from './http/upload-spool.js';
import { loadServiceConfig, type ServiceConfig, type ServiceConfigInput } from './config.js';
import type { Connectors } from './connectors.js';
import { loadPlugins } from './plugins.js';
import { createServiceLogger, toKmLogger } from './logging.js';
import { probeBackends } from './startup-probe.js';
import { createMemoryFromConfig, describeAi } from './memory-factory.js';
import { ServiceMetrics } from './metrics.js';

/** Options of {@link startService} and {@link startWorker}. */
export interface StartOptions {
  /** A full configuration; otherwise it is loaded from KM_CONFIG, the environment and `overrides`. */
  config?: ServiceConfig;
  overrides?: ServiceConfigInput;
  /** A JSON configuration file (instead of KM_CONFIG). */
  configFile?: string;
  /** The environment the configuration reads (KM_CONFIG and the KM_* variables). @default process.env */
  env?: NodeJS.ProcessEnv;
  /**
   * The connectors, already loaded (`loadPlugins`). Otherwise the plugins the configuration
   * names (`plugins`, KM_PLUGINS, `overrides.plugins`) are loaded, from the working directory.
   */
  connectors?: Connectors;
  /** Customises the memory (handlers, memory DBs) before it is built. */
  configure?: (builder: KernelMemoryBuilder) => KernelMemoryBuilder;
  /** Where logs go. @default stdout */
  logDestination?: pino.DestinationStream;
  /** Stop on SIGINT and SIGTERM. @default false */
  handleSignals?: boolean;
}

/** A running service. */
export interface RunningService {
  /** e.g. `http://127.0.0.1:9001` */
  url: string;
  config: ServiceConfig;
  app: FastifyInstance;
  memory: MemoryService;
  /** Stops taking requests, finishes those in progress, drains the pipeline steps, closes. */
  close(): Promise<void>;
}

/**
 * Starts the memory service: loads the configuration, builds the memory, starts the pipeline
 * (in this process unless `runHandlers` is false) and listens.
 *
 * ```ts
 * const service = await startService({ overrides: { port: 9001 }, handleSignals: true });
 * console.log(`listening on ${service.url}`);
 * ```
 */
export async function startService(options: StartOptions = {}): Promise<RunningService> {
  const metrics = new ServiceMetrics();
  const { config, logger, memory, stopMemory } = await openMemory(options, metrics, (c) => c.runHandlers, removeUploadLeftovers);
  const app = await createApp({ memory, config, logger, metrics });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await memory.stop({ drainTimeoutMs: 0 });
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  const ai = describeAi(config);
  logger.info(
    {
      url,
      dataDirectory: config.dataDirectory,
      queue: config.queue.type,
      memoryDb: config.memoryDb.type,
      runHandlers: config.runHandlers,
      auth: config.auth.enabled,
      ...ai,
    },
    'km service listening',
  );

  const close = once(async () => {
    logger.info('km service stopping');
    await app.close();
    await stopMemory();
    logger.info('km service stopped');
  });
  if (options.handleSignals) onSignals(close);
  return { url, config, app, memory, close };
}

/** A running `km worker`: pipeline steps only, no HTTP. */
export interface RunningWorker {
  config: ServiceConfig;
  memory: MemoryService;
  close(): Promise<void>;
}

/**
 * Runs the pipeline handlers of a configuration without the HTTP API, sharing the content
 * storage, memory DBs and queues of the service that uses the same configuration.
 */
export async function startWorker(options: StartOptions = {}): Promise<RunningWorker> {
  const { config, logger, memory, stopMemory } = await openMemory(options, new ServiceMetrics({ processMetrics: false }), () => true);
  // Queues need not hold the event loop open (in-memory ones do not): the worker runs until closed.
  const keepAlive = setInterval(() => undefined, 60_000);
  logger.info(
    { dataDirectory: config.dataDirectory, queue: config.queue.type, memoryDb: config.memoryDb.type, ...describeAi(config) },
    'km worker started',
  );
  const close = once(async () => {
    clearInterval(keepAlive);
    await stopMemory();
    logger.info('km worker stopped');
  });
  if (options.handleSignals) onSignals(close);
  return { config, memory, close };
}

/**
 * Removes the upload spool folders of processes that stopped, before the memory starts. Never
 * fails the start: a folder that cannot be removed is logged and left.
 */
async function removeUploadLeftovers(config: ServiceConfig, logger: pino.Logger): Promise<void> {
  const warn = (name: string, error: unknown) =>
    logger.warn({ err: error, folder: name }, 'could not remove an upload spool folder left by a process that stopped');
  const stale = await removeStaleSpool(uploadSpoolDirectory(config.dataDirectory), { warn }).catch((error: unknown) => {
    warn(uploadSpoolDirectory(config.dataDirectory), error);
    return [];
  });
  if (stale.length > 0) logger.info({ folders: stale.length }, 'removed upload spool folders left by a process that stopped');
}

/** What the service and the worker share: configuration, logger and a started memory. */
async function openMemory(
  options: StartOptions,
  metrics: ServiceMetrics,
  runHandlers: (config: ServiceConfig) => boolean,
  beforeStart?: (config: ServiceConfig, logger: pino.Logger) => Promise<void>,
) {
  const { config, connectors } = options.config
    ? { config: options.config, connectors: options.connectors ?? (await loadPlugins(options.config.plugins ?? [])) }
    : await loadServiceConfig({
        ...(options.configFile ? { file: options.configFile } : {}),
        ...(options.env ? { env: options.env } : {}),
        overrides: options.overrides ?? {},
        ...(options.connectors ? { connectors: options.connectors } : {}),
      });
  const logger = createServiceLogger(config.logLevel, options.logDestination);
  await beforeStart?.(config, logger);
  const memory = await createMemoryFromConfig(config, {
    logger: toKmLogger(logger),
    observer: metrics.observer,
    connectors,
    ...(options.configure ? { configure: options.configure } : {}),
  });
  /** Drains the steps in progress (up to `shutdownTimeoutMs`), releases the embedding model, closes memory DB pools and the content storage's clients. */
  const stopMemory = async () => {
    await memory.stop({ drainTimeoutMs: config.shutdownTimeoutMs });
    await memory.orchestrator.context.embeddingGenerator?.close?.();
    for (const db of memory.orchestrator.context.memoryDbs) await (db as { close?: () => Promise<void> }).close?.().catch(() => undefined);
    await (memory.orchestrator.context.contentStorage as { close?: () => Promise<void> }).close?.().catch(() => undefined);
  };
  try {
    const { memoryDbs, contentStorage } = memory.orchestrator.context;
    await probeBackends(
      [
        ...memoryDbs.map((db) => ({ name: `memory DB ${db.constructor.name}`, check: () => db.getIndexes() })),
        { name: `content storage ${contentStorage.constructor.name}`, check: () => contentStorage.listIndexes() },
      ],
      toKmLogger(logger),
    );
  } catch (error) {
    await stopMemory().catch(() => undefined);
    throw error;
  }
  await memory.start({ runHandlers: runHandlers(config) });
  return { config, logger, memory, stopMemory };
}

/** A function that runs `task` the first time and returns that same promise afterwards. */
function once(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= task());
}

function onSignals(close: () => Promise<void>): void {
  let signalled = false;
  const handler = (signal: NodeJS.Signals) => {
    if (signalled) {
      process.exit(130); // a second signal: stop now
    }
    signalled = true;
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`[km] shutdown after ${signal} failed: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}
