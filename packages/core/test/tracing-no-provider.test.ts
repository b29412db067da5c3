import { context, trace } from '@opentelemetry/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { InMemoryQueue, InMemoryQueueBroker, injectTraceContext, withSpan, withTraceContext } from '../src/index.js';
import { dropTracing } from './tracing-helpers.js';
import { cleanupAfterTests, inMemory, inMemoryBuilder, ScriptedTextGenerator, waitUntilCompleted } from './helpers.js';

const { services } = cleanupAfterTests();
// An earlier test file of the same worker may have registered an SDK.
beforeAll(dropTracing);

describe('tracing with no OpenTelemetry SDK registered', () => {
  it('imports (in process and over queues), searches and asks as before, and spans are no-ops', async () => {
    const { memory } = inMemory((b) => b.withTextGenerator(new ScriptedTextGenerator(() => 'A dwarf planet.')));
    await memory.importText('Pluto is a dwarf planet.', { documentId: 'pluto' });
    expect((await memory.search('dwarf planet')).results).toHaveLength(1);
    expect((await memory.ask('What is Pluto?')).text).toBe('A dwarf planet.');

    const broker = new InMemoryQueueBroker();
    const service = inMemoryBuilder()
      .withQueueFactory((_step, { maxAttempts }) => new InMemoryQueue({ broker, maxAttempts, retryDelayMs: 10 }))
      .buildService();
    services.push(service);
    await service.start();
    await service.importText('Ceres is in the asteroid belt.', { documentId: 'ceres' });
    await waitUntilCompleted(service, 'ceres', 20);

    await withSpan('nothing', {}, async (span) => {
      expect(span.isRecording()).toBe(false);
      expect(trace.getSpan(context.active())).toBeUndefined();
      // Queue messages stay as they were written: no trace context to carry.
      expect(withTraceContext('{"index":"default"}')).toBe('{"index":"default"}');
      expect(injectTraceContext({})).toEqual({});
    });
  });
});
