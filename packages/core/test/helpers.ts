import type { IMemoryDb, ITextGenerator, MemoryRecord, TextGenerationOptions } from '../src/index.js';
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
