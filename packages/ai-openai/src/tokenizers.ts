import { CL100KTokenizer, type ITextTokenizer } from '@km/core';
import { BpeTokenizer, loadGptEncoding } from '@km/core/connector';

/** OpenAI's o200k_base tokenizer (GPT-4o, GPT-4.1, GPT-5, o-series), through `gpt-tokenizer`; its tables load on first use. */
export class O200KTokenizer extends BpeTokenizer {
  constructor() {
    super(() => loadGptEncoding('o200k_base'));
  }
}

const O200K_FAMILIES = /^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o1|o3|o4|gpt-oss)/i;

/**
 * The tokenizer of an OpenAI model family: o200k for GPT-4o and later chat models, cl100k for
 * GPT-3.5/GPT-4 and the text-embedding models. Models of other vendors (through a compatible
 * endpoint) get cl100k, a fair estimate of token counts for budgeting.
 */
export function tokenizerForModel(model: string): ITextTokenizer {
  const name = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  return O200K_FAMILIES.test(name) ? new O200KTokenizer() : new CL100KTokenizer();
}
