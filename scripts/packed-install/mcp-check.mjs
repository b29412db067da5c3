// Steps 6 and 8: `km mcp` over stdio, listed by the MCP SDK's client from the installed tree.
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mustRun } from './processes.mjs';
import { fail } from './transcript.mjs';

/** Tools every `km mcp` offers (read-only or not). */
export const EXPECTED_TOOLS = ['search', 'ask', 'list_documents'];

/**
 * Copies fixtures/mcp-tools.mjs into the project and runs it against the installed `km`.
 * @param {string} project
 * @param {string} dataDirectory a fresh folder for km's local mode
 * @returns {Promise<string[]>}
 */
export async function checkMcpTools(project, dataDirectory) {
  await copyFile(new URL('./fixtures/mcp-tools.mjs', import.meta.url), join(project, 'mcp-tools.mjs'));
  const km = join(project, 'node_modules', '.bin', 'km');
  const { stdout, output } = await mustRun(process.execPath, ['mcp-tools.mjs', km, dataDirectory], { cwd: project, timeoutMs: 120_000 });
  let tools;
  try {
    tools = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
  } catch {
    fail('mcp-tools.mjs printed no JSON list of tools:', output);
  }
  const missing = EXPECTED_TOOLS.filter((name) => !tools.includes(name));
  if (missing.length > 0) fail(`km mcp does not offer ${missing.join(', ')}; its tools:`, tools.join(', '));
  return [`km mcp (stdio) lists ${tools.length} tools: ${tools.join(', ')}`];
}
