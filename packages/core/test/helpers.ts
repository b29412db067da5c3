import { rm } from 'node:fs/promises';
import { afterAll, afterEach } from 'vitest';
import type { IMemoryDb, ITextGenerator, MemoryRecord, MemoryService, TextGenerationOptions } from '../src/index.js';
import { CL100KTokenizer } from '../src/index.js';

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

export async function allRecords(db: IMemoryDb, index = 'default'): Promise<MemoryRecord[]> {
  return collect(db.getList(index, { limit: 0 }));
}

/**
 * A scripted text generator: answers with `reply(prompt)` in small pieces and records the
 * prompts it saw. It stands in for an LLM (no backend claim is made with it).
 */
export class ScriptedTextGenerator implements ITextGenerator {
  readonly maxTokenTotal: number;
  readonly modelName = 'scripted';
  readonly tokenizer = new CL100KTokenizer();
  readonly prompts: string[] = [];

  constructor(
    private readonly reply: (prompt: string) => string,
    maxTokenTotal = 4096,
  ) {
    this.maxTokenTotal = maxTokenTotal;
  }

  async *generate(prompt: string, options: TextGenerationOptions): AsyncIterable<string> {
    this.prompts.push(prompt);
    const text = this.reply(prompt);
    for (let i = 0; i < text.length; i += 7) yield text.slice(i, i + 7);
    options.onUsage?.({ timestamp: new Date().toISOString(), serviceTokensIn: 11, serviceTokensOut: 5 });
  }
}

/**
 * What a test file's tests leave behind: services to stop after each test and folders to
 * remove after the file. Registers the hooks that do it; tests push onto the lists.
 */
export function cleanupAfterTests(): { dirs: string[]; services: MemoryService[] } {
  const dirs: string[] = [];
  const services: MemoryService[] = [];
  afterEach(async () => {
    for (const s of services.splice(0)) await s.stop({ drainTimeoutMs: 0 });
  });
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  return { dirs, services };
}
