import type { IKernelMemory } from '@km/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolErrorOf, type ToolErrorLogger } from './tool-errors.js';

/** What every tool of the server works with. */
export interface ToolContext {
  memory: IKernelMemory;
  /** The index a call names, else the server's default index (undefined: the memory's default). */
  indexOf(index: string | undefined): string | undefined;
  /** Where unexpected errors are reported. */
  log: ToolErrorLogger | undefined;
}

/** Runs a tool's work; whatever it throws becomes a tool error result, never a protocol error. */
export async function runTool(tool: string, context: ToolContext, work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    return toolErrorOf(error, tool, context.log);
  }
}

/** A successful result with both forms: text for the model, structured content for programs. */
export function okResult<T extends Record<string, unknown>>(structured: T, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}
