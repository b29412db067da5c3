import cliProgress from 'cli-progress';
import { statusFailure, type DataPipelineStatus } from '@km/core';
import type { CliOutput } from './cli-context.js';

/** Shows one progress bar per document (steps done of steps), or plain lines when not on a terminal. */
export class ImportProgress {
  private readonly multibar: cliProgress.MultiBar | undefined;
  private readonly bars = new Map<string, cliProgress.SingleBar>();
  private readonly lastLine = new Map<string, string>();

  constructor(private readonly out: CliOutput = process.stderr) {
    if (out.isTTY) {
      this.multibar = new cliProgress.MultiBar(
        {
          format: ' {bar} {value}/{total} steps | {document} {state}',
          hideCursor: true,
          clearOnComplete: false,
          stream: out as NodeJS.WriteStream,
        },
        cliProgress.Presets.shades_classic,
      );
    }
  }

  update(documentId: string, status: DataPipelineStatus | null): void {
    const total = Math.max(1, status?.steps.length ?? 1);
    const done = status?.completed_steps.length ?? 0;
    const failure = status ? statusFailure(status) : undefined;
    const state = !status
      ? 'queued'
      : failure !== undefined
        ? `failed: ${failure}`
        : status.completed
          ? 'done'
          : `${status.remaining_steps[0] ?? ''}...`;
    if (this.multibar) {
      let bar = this.bars.get(documentId);
      if (!bar) this.bars.set(documentId, (bar = this.multibar.create(total, 0, { document: documentId, state })));
      bar.setTotal(total);
      bar.update(done, { document: documentId, state });
      return;
    }
    const line = `${documentId}: ${done}/${total} steps, ${state}`;
    if (this.lastLine.get(documentId) !== line) {
      this.lastLine.set(documentId, line);
      this.out.write(`${line}\n`);
    }
  }

  stop(): void {
    this.multibar?.stop();
  }
}
