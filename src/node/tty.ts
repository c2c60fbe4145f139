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
