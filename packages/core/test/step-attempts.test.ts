import { describe, expect, it } from 'vitest';
import { InMemoryQueue, InMemoryQueueBroker, stepQueueMaxAttempts, type StepQueueSettings } from '../src/index.js';
import { inMemoryBuilder } from './helpers.js';

describe('one number decides the attempts of a step', () => {
  it('derives a queue’s delivery cap from the step attempts: two more', () => {
    expect([1, 3, 5].map((n) => stepQueueMaxAttempts(n))).toEqual([3, 5, 7]);
  });

  it('with a retry budget, adds the retries whose delays span it twice on average (full jitter: half of each ceiling)', () => {
    // 1 s doubling to 60 s: 1+2+4+8+16+32 = 63 s in 6 retries, then 60 s each up to 4 × 600 s.
    expect(stepQueueMaxAttempts(3, 600_000)).toBe(5 + 6 + Math.ceil((2_400_000 - 63_000) / 60_000));
    expect(stepQueueMaxAttempts(3, 10_000, { initialDelayMs: 1000, maxDelayMs: 1000 })).toBe(5 + 40);
    expect(stepQueueMaxAttempts(3, 0)).toBe(5);
  });

  it('the distributed orchestrator tells every queue factory the cap derived from its step attempts and retry budget', async () => {
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
      const cap = stepQueueMaxAttempts(4, 600_000);
      expect(told.every(([, settings]) => settings.maxAttempts === cap)).toBe(true);
      expect(queues.every((queue) => queue.maxAttempts === cap)).toBe(true);
    } finally {
      await memory.stop();
    }
  });
});
