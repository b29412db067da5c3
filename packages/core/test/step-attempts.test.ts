import { describe, expect, it } from 'vitest';
import { InMemoryQueue, InMemoryQueueBroker, stepQueueMaxAttempts, type StepQueueSettings } from '../src/index.js';
import { inMemoryBuilder } from './helpers.js';

describe('one number decides the attempts of a step', () => {
  it('derives a queue’s delivery cap from the step attempts: two more', () => {
    expect([1, 3, 5].map(stepQueueMaxAttempts)).toEqual([3, 5, 7]);
  });

  it('the distributed orchestrator tells every queue factory the cap derived from its step attempts', async () => {
    const broker = new InMemoryQueueBroker();
    const told: Array<[string, StepQueueSettings]> = [];
    const queues: InMemoryQueue[] = [];
    const memory = inMemoryBuilder()
      .withOrchestratorOptions({ maxAttempts: 4 })
      .withQueueFactory((step, settings) => {
        told.push([step, settings]);
        const queue = new InMemoryQueue({ broker, ...settings });
        queues.push(queue);
        return queue;
      })
      .buildService();
    await memory.start();
    try {
      expect(told.map(([step]) => step)).toContain('extract');
      expect(told.every(([, settings]) => settings.maxAttempts === 6)).toBe(true);
      expect(queues.every((queue) => queue.maxAttempts === 6)).toBe(true);
    } finally {
      await memory.stop();
    }
  });
});
