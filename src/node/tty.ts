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

/** One Int32 to sleep on (Atomics.wait) while a non-blocking descriptor is full. */
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `text` to stdout (1) or stderr (2) at once, synchronously, without building
 * process.stdout / process.stderr: Bun builds those streams on first access, ≈10 ms of CPU that
 * a short command (`parley --version`, `parley workspaces list`) would spend on them, more than
 * the rest of its own work. A full non-blocking pipe is waited for; a stdout whose reader has gone
 * (`| head -1`) ends the process with status 0, quietly (the reader has what it wanted), a stderr
 * whose reader has gone is ignored.
 */
export function writeFd(fd: 1 | 2, text: string): void {
  let buf = Buffer.from(text);
  while (buf.length) {
    try {
      buf = buf.subarray(writeSync(fd, buf));
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      if (code === "EAGAIN") {
        Atomics.wait(pause, 0, 0, 1);
        continue;
      }
      if (isBrokenPipe(err)) {
        if (fd === 1) process.exit(0);
        return;
      }
      throw err;
    }
  }
}

/** `writeFd(1, text)`: a command's output. */
export const writeOut = (text: string): void => writeFd(1, text);
/** `writeFd(2, text)`: a command's one-line errors. */
export const writeErr = (text: string): void => writeFd(2, text);

/** A write to a pipe whose reader has gone (`parley keys list | head -1`): the reader has what it wanted. */
export function isBrokenPipe(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === "EPIPE";
}

let guarded = false;

/**
 * A command's output piped into `head -1` and the like: once the reader has gone, the next
 * write fails with EPIPE, which Node-style streams report as an 'error' event after the write
 * returned; unheard, it ends the process with a stack trace. This ends it quietly instead, with
 * status 0 (the reader has what it wanted). Builds process.stdout and process.stderr: only the
 * commands that use the streams call it (the Ink screens); the others write with writeOut and
 * writeErr, and `serve` never writes to stdout's stream (see above).
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
