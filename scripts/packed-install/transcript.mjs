// The run's transcript: numbered steps with their time and a few detail lines each, and the one
// error type a failed check throws, so run.mjs can print it as the reason and exit non-zero.

/** A check that failed: its message is printed as the run's reason (no stack). */
export class CheckFailure extends Error {
  /**
   * @param {string} message what went wrong, in a sentence
   * @param {string} [output] the command output or response that shows it, printed below
   */
  constructor(message, output) {
    super(message);
    this.name = 'CheckFailure';
    this.output = output;
  }
}

/**
 * Throws a {@link CheckFailure}.
 * @param {string} message
 * @param {string} [output]
 * @returns {never}
 */
export function fail(message, output) {
  throw new CheckFailure(message, output);
}

/** Seconds since `start` (a `performance.now()` value), as `12.3 s`. */
export function elapsed(start) {
  return `${((performance.now() - start) / 1000).toFixed(1)} s`;
}

/** Bytes as `12.3 kB` / `4.5 MB` (powers of 1000, as npm prints sizes). */
export function formatBytes(bytes) {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

let stepNumber = 0;

/**
 * Runs one step: prints its number and title, then its time and the detail lines it returns.
 * @template {string[] | void} T
 * @param {string} title
 * @param {() => Promise<T>} action returns the detail lines to print (or nothing)
 * @returns {Promise<T>}
 */
export async function step(title, action) {
  stepNumber += 1;
  const start = performance.now();
  process.stdout.write(`${String(stepNumber).padStart(2)}. ${title}\n`);
  try {
    const details = await action();
    for (const line of details ?? []) process.stdout.write(`      ${line}\n`);
    process.stdout.write(`    ok (${elapsed(start)})\n`);
    return details;
  } catch (error) {
    process.stdout.write(`    FAILED (${elapsed(start)})\n`);
    throw error;
  }
}
