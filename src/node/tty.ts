import { writeSync } from "node:fs";

// process.stdout / process.stderr are built on first access, with Bun's node streams behind them:
// ~2.5 MB resident for a server that, at idle, never writes a line (issue 13). The checks and
// the one line `serve` writes here go to the file descriptor instead.

type TtyBinding = { isTTY(fd: number): boolean };

/** Whether the file descriptor is a terminal (isatty), without building process.stdout/stderr. */
export function isTty(fd: 1 | 2): boolean {
  try {
    return (process as unknown as { binding(name: string): TtyBinding }).binding("tty_wrap").isTTY(fd);
  } catch {
    return (fd === 1 ? process.stdout : process.stderr).isTTY === true;
  }
}

/** Writes a short line to stdout synchronously (no stream); a closed or broken stdout is not the server's failure. */
export function writeStdoutLine(line: string): void {
  try {
    writeSync(1, line + "\n");
  } catch {
    // nobody reads it
  }
}

/** A write to a pipe whose reader has gone (`parley keys list | head -1`): the reader has what it wanted. */
export function isBrokenPipe(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === "EPIPE";
}

let guarded = false;

/**
 * A command's output piped into `head -1` and the like: once the reader has gone, the next
 * write fails with EPIPE, which Node-style streams report as an 'error' event after the write
 * returned; unheard, it ends the process with a stack trace. This ends it quietly instead, with
 * status 0 (the reader has what it wanted). Builds process.stdout: commands that print call it,
 * not `serve`, which never writes to the stream (see above).
 */
export function quietOnBrokenPipe(): void {
  if (guarded) return;
  guarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (err: unknown) => {
      if (isBrokenPipe(err)) process.exit(0);
      throw err;
    });
  }
}
