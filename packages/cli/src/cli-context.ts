/** An output of km: a stream, a terminal when `isTTY` (progress is then drawn in place). */
export type CliOutput = NodeJS.WritableStream & { isTTY?: boolean };

/**
 * Where km writes and what environment it reads: the process's own when km runs as a program.
 * A host that runs km's commands in its own process (a test, an embedding tool) gives its own.
 */
export interface CliIo {
  /** The command's output (results, JSON). @default process.stdout */
  stdout: CliOutput;
  /** Progress, logs and errors. @default process.stderr */
  stderr: CliOutput;
  /** KM_URL, KM_API_KEY, KM_LOG_LEVEL, KM_DEBUG, the service's KM_* settings in local mode. @default process.env */
  env: NodeJS.ProcessEnv;
}

/** One run of km: its I/O, and the exit code a command sets when it ends without an error (an item failed, an interrupted sync). */
export interface CliContext extends CliIo {
  print(text: string): void;
  exitCode: number;
}

export function cliContext(io: Partial<CliIo> = {}): CliContext {
  const stdout = io.stdout ?? process.stdout;
  return {
    stdout,
    stderr: io.stderr ?? process.stderr,
    env: io.env ?? process.env,
    print: (text) => void stdout.write(text),
    exitCode: 0,
  };
}
