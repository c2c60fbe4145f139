// A command whose work is over (its output written, its store closed) ends the process at once:
// what is left for a natural exit (the runtime tearing down its heap and its modules) is memory
// the operating system frees anyway, ≈0.5 ms of a short command (docs/benchmarks.md, "Cold start,
// fourth pass"). Only commands that say they are finished exit so: a server, the sim network and
// the terminal screens keep running after their action returns.

let finished = false;

/** The running command has finished its work and closed what it opened. */
export function commandFinished(): void {
  finished = true;
}

/** Ends the process now when the command said it finished (with its exit code), else returns. */
export function exitIfFinished(): void {
  if (finished) process.exit(process.exitCode ?? 0);
}
