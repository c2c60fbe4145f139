#!/usr/bin/env bun
import { mark } from "./start-mark.ts";
import { buildProgram } from "../cli/program.ts";
import { isBrokenPipe } from "./node/tty.ts";
import { exitIfFinished } from "./node/exit.ts";

// commands print with writeOut / writeErr (node/tty.ts), straight to the descriptors: a reader
// that goes away (`parley keys list | head -1`) ends them quietly, and no process builds the
// process.stdout / process.stderr streams unless it uses them (the Ink screens, the server's log)
mark("main");
try {
  const program = await buildProgram(process.argv);
  mark("command loaded");
  await program.parseAsync(process.argv);
  mark("command done");
  exitIfFinished();
} catch (err) {
  // the output's reader stopped reading (`| head -1`): nothing went wrong here, no stack trace
  if (isBrokenPipe(err)) process.exit(0);
  throw err;
}
