import { describe, expect, it } from 'vitest';
import { km } from './helpers.js';

describe('km serve chooses model providers by flag', () => {
  it("lists --text-generator, --embedding-generator and the providers' flags, --ollama-url once", async () => {
    const { stdout, code } = await km(['serve', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/--text-generator <type>[\s\S]*anthropic,\s+ollama/);
    expect(stdout).toMatch(/--embedding-generator <type>.*ollama/s);
    expect(stdout).toMatch(/--anthropic-model <value>/);
    expect(stdout.match(/--ollama-url <value>/g)).toHaveLength(1);
    expect(stdout).toMatch(/--ollama-url <value>[\s\S]*--text-generator\s+ollama and\s+--embedding-generator\s+ollama/);
  });

  // A refused URL proves the flag reached the section: once through the embeddings, once through the answers.
  it('--ollama-url sets the server of the Ollama embeddings', async () => {
    const { stderr, code } = await km(['serve', '--embedding-generator', 'ollama', '--ollama-url', 'ftp://x']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/embeddings\.provider is ollama but embeddings\.ollamaUrl \(KM_OLLAMA_URL or OLLAMA_HOST\)/);
  });

  it('--ollama-url sets the server of the Ollama answers', async () => {
    const { stderr, code } = await km(['serve', '--text-generator', 'ollama', '--ollama-url', 'ftp://x']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/textGenerator\.type is ollama but textGenerator\.ollamaUrl/);
  });

  it('refuses an unknown provider, listing the known ones', async () => {
    const { stderr, code } = await km(['serve', '--text-generator', 'gemini']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/KM_TEXT_GENERATOR\) must be one of "openai", "azure-openai", "none", "anthropic", "ollama", got "gemini"/);
  });
});
