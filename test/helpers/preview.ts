// Runs `npm run preview -- ...` as a reader would, in a process of its own, without blocking the
// test's event loop: a test may serve the lookups the preview makes (LOOKUP_BASE_URL) from its own.
import { execFile } from 'node:child_process';

import { cleanEnv } from './bot.js';

export interface PreviewRun {
  /** The exit code; null when it was killed at the timeout. */
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The preview with `args`, its settings `env` on top of a clean environment (LOG_LEVEL warn unless given). */
export function runPreview(args: readonly string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<PreviewRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/bot/preview.ts', ...args],
      { env: { ...cleanEnv(), LOG_LEVEL: 'warn', ...env }, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}
