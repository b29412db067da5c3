import { join } from 'node:path';
import { FileQueue } from '../queue/file-queue.js';
import { InMemoryQueue } from '../queue/in-memory-queue.js';
import { InMemoryQueueBroker } from '../queue/in-memory-queue-broker.js';
import { type QueueFactory, queueConsumerOptions } from './connector-factory.js';

/** The embedded queue as a factory (`KM_QUEUE=file`): a folder per step under `{data}/queues`, shared by the processes of one machine. */
export const fileQueueFactory: QueueFactory = {
  type: 'file',
  description: 'a folder per step under the data folder (one machine, survives restarts)',
  settings: [],
  async create(_settings, context) {
    const directory = join(context.dataDirectory, 'queues', ...(context.prefix ? [context.prefix] : []));
    const { visibilityTimeoutMs, pollIntervalMs } = context;
    return () => new FileQueue({ ...queueConsumerOptions(context), directory, visibilityTimeoutMs, pollIntervalMs });
  },
};

/** Queues in process memory as a factory (`KM_QUEUE=memory`): one process, nothing survives it. */
export const memoryQueueFactory: QueueFactory = {
  type: 'memory',
  description: 'in process memory (one process; lost on exit)',
  settings: [],
  async create(_settings, context) {
    const broker = new InMemoryQueueBroker();
    return () => new InMemoryQueue({ ...queueConsumerOptions(context), broker });
  },
};
