import type { ITextGenerator, TokenUsage } from '@km/core';
import { describe, expect, it } from 'vitest';

/** How the suite gets a text generator. */
export interface TextGeneratorSuiteOptions {
  create: () => Promise<ITextGenerator> | ITextGenerator;
  dispose?: (generator: ITextGenerator) => Promise<void> | void;
  /** The generator reports service token usage through `onUsage`. @default true */
  reportsUsage?: boolean;
  /** Timeout of each case, in ms. @default 60000 */
  timeoutMs?: number;
  skip?: string | false;
}

/**
 * The text generator conformance suite: streams a non-empty answer in pieces, reports
 * usage, declares its context window, and stops on an aborted signal.
 */
export function describeTextGenerator(name: string, options: TextGeneratorSuiteOptions): void {
  describe(`ITextGenerator conformance: ${name}`, () => {
    if (options.skip) {
      it.skip(`skipped: ${options.skip}`, () => undefined);
      return;
    }
    const timeout = options.timeoutMs ?? 60_000;
    const withGenerator = async (fn: (g: ITextGenerator) => Promise<void>) => {
      const g = await options.create();
      try {
        await fn(g);
      } finally {
        await options.dispose?.(g);
      }
    };
    const prompt = 'Reply with the single word: hello';

    it(
      'streams a non-empty answer',
      async () => {
        await withGenerator(async (g) => {
          const pieces: string[] = [];
          for await (const piece of g.generate(prompt, { maxTokens: 20, temperature: 0 })) pieces.push(piece);
          expect(pieces.length).toBeGreaterThan(0);
          expect(pieces.join('').trim().length).toBeGreaterThan(0);
        });
      },
      timeout,
    );

    const itUsage = options.reportsUsage === false ? it.skip : it;
    itUsage(
      `reports token usage${options.reportsUsage === false ? ' [skipped: reportsUsage is off]' : ''}`,
      async () => {
        await withGenerator(async (g) => {
          let usage: TokenUsage | undefined;
          for await (const _ of g.generate(prompt, { maxTokens: 20, onUsage: (u) => (usage = u) })) void _;
          expect(usage).toBeDefined();
          expect((usage!.serviceTokensIn ?? 0) + (usage!.serviceTokensOut ?? 0)).toBeGreaterThan(0);
        });
      },
      timeout,
    );

    it(
      'declares its context window and counts tokens',
      async () => {
        await withGenerator(async (g) => {
          expect(g.maxTokenTotal).toBeGreaterThan(0);
          expect(g.tokenizer.countTokens(prompt)).toBeGreaterThan(0);
        });
      },
      timeout,
    );

    it(
      'an aborted signal stops the generation with an error',
      async () => {
        await withGenerator(async (g) => {
          const controller = new AbortController();
          controller.abort();
          const run = async () => {
            for await (const _ of g.generate(prompt, { maxTokens: 20, signal: controller.signal })) void _;
          };
          await expect(run()).rejects.toBeTruthy();
        });
      },
      timeout,
    );
  });
}
