import type { ITextGenerator, TokenUsage } from '@km/core';
import { expect } from 'vitest';
import { describeGeneratorSuite, type GeneratorSuiteOptions } from './generator-suite.js';

/** How the suite gets a text generator. */
export interface TextGeneratorSuiteOptions extends GeneratorSuiteOptions<ITextGenerator> {
  /** The generator reports service token usage through `onUsage`. @default true */
  reportsUsage?: boolean;
  /** Timeout of each case, in ms. @default 60000 */
  timeoutMs?: number;
}

const prompt = 'Reply with the single word: hello';

/**
 * The text generator conformance suite: streams a non-empty answer in pieces, reports
 * usage, declares its context window, and stops on an aborted signal.
 */
export function describeTextGenerator(name: string, options: TextGeneratorSuiteOptions): void {
  describeGeneratorSuite(`ITextGenerator conformance: ${name}`, options, 60_000, {
    'streams a non-empty answer': async (g) => {
      const pieces: string[] = [];
      for await (const piece of g.generate(prompt, { maxTokens: 20, temperature: 0 })) pieces.push(piece);
      expect(pieces.length).toBeGreaterThan(0);
      expect(pieces.join('').trim().length).toBeGreaterThan(0);
    },

    'reports token usage': {
      skip: options.reportsUsage === false && 'reportsUsage is off',
      run: async (g) => {
        let usage: TokenUsage | undefined;
        for await (const _ of g.generate(prompt, { maxTokens: 20, onUsage: (u) => (usage = u) })) void _;
        expect(usage).toBeDefined();
        expect((usage!.serviceTokensIn ?? 0) + (usage!.serviceTokensOut ?? 0)).toBeGreaterThan(0);
      },
    },

    'declares its context window and counts tokens': async (g) => {
      expect(g.maxTokenTotal).toBeGreaterThan(0);
      expect(g.tokenizer.countTokens(prompt)).toBeGreaterThan(0);
    },

    'an aborted signal stops the generation with an error': async (g) => {
      const controller = new AbortController();
      controller.abort();
      const run = async () => {
        for await (const _ of g.generate(prompt, { maxTokens: 20, signal: controller.signal })) void _;
      };
      await expect(run()).rejects.toBeTruthy();
    },
  });
}
