import { describe, expect, it } from 'vitest';
import { ScriptedTextGenerator, inMemoryBuilder } from './helpers.js';

describe("Kernel Memory's gen_embeddings_parallel and summarize_parallel run as gen_embeddings and summarize", () => {
  const builder = () => inMemoryBuilder().withTextGenerator(new ScriptedTextGenerator(() => 'Penguins live in the southern hemisphere.'));
  const steps = [
    'extract',
    'partition',
    'gen_embeddings_parallel',
    'save_records',
    'summarize_parallel',
    'gen_embeddings_parallel',
    'save_records',
  ];

  it('in process', async () => {
    const memory = builder().build();
    await memory.importText('Emperor penguins breed during the Antarctic winter.', { documentId: 'kmsteps', steps });
    expect(await memory.getDocumentStatus('kmsteps')).toMatchObject({ completed: true, failed: false, completed_steps: steps });
    const found = await memory.search('emperor penguins antarctic winter');
    expect(found.results[0]?.documentId).toBe('kmsteps');
  });

  it('through the queues', async () => {
    const service = builder().buildService();
    await service.start();
    try {
      await service.importText('Emperor penguins breed during the Antarctic winter.', { documentId: 'queued', steps });
      expect(await service.waitForDocument('queued', { timeoutMs: 15_000, pollIntervalMs: 20 })).toMatchObject({ completed_steps: steps });
    } finally {
      await service.stop();
    }
  });
});
