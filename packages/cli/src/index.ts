export { runCli, runKm } from './cli.js';
export type { CliIo, CliOutput } from './cli-context.js';
export { CliError, EXIT_CODES, exitCodeOf, reportError, type ExitCode } from './errors.js';
export { expandInputs, toDocumentId, type ImportItem } from './inputs.js';
export { openTarget, type MemoryTarget, type TargetOptions } from './memory-target.js';
export { CLI_VERSION } from './version.js';
