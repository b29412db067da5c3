import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeQueue } from '@km/conformance';
import { FileQueue, InMemoryQueue, InMemoryQueueBroker } from '@km/core';

const broker = new InMemoryQueueBroker();
describeQueue('InMemoryQueue', { create: (settings) => new InMemoryQueue({ broker, ...settings }) });

const folder = mkdtempSync(join(tmpdir(), 'km-file-queue-'));
describeQueue('FileQueue', {
  create: (settings) => new FileQueue({ directory: folder, pollIntervalMs: 20, durable: false, ...settings }),
});
