#!/usr/bin/env bun
import { mark } from "./start-mark.ts";
import { buildProgram } from "../cli/program.ts";
import { isBrokenPipe, quietOnBrokenPipe } from "./node/tty.ts";

// every command but serve prints for a reader that may go away (`parley keys list | head -1`)
if (process.argv[2] !== "serve") quietOnBrokenPipe();
mark("main");
try {
  const program = await buildProgram(process.argv);
  mark("command loaded");
  await program.parseAsync(process.argv);
  mark("command done");
} catch (err) {
  // the output's reader stopped reading (`| head -1`): nothing went wrong here, no stack trace
  if (isBrokenPipe(err)) process.exit(0);
  throw err;
}
