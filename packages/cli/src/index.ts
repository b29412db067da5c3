export { runCli, reportError } from './cli.js';
export { expandInputs, toDocumentId, type ImportItem } from './inputs.js';
export { openTarget, type MemoryTarget, type TargetOptions } from './memory-target.js';
export { CLI_VERSION } from './version.js';
