import { mark } from "../src/start-mark.ts";
import type { Command } from "commander";
import { announceUrl, DataDirBusyError, withdrawUrl } from "../src/db/lock.ts";
import { NewerDatabaseError } from "../src/db/migrate.ts";
import { hostUrl } from "../src/http/public-url.ts";
import { ListenError, PortInUseError, startServer } from "../src/server.ts";
import { isTty, writeStdoutLine, writeErr } from "../src/node/tty.ts";
import { releaseMemory, releaseWhenIdle } from "./idle-release.ts";
import { addConfigFlags, flagsGiven, SERVE_FLAG_KEYS } from "./config-flags.ts";
import { configOrExit, processLogger } from "./context.ts";

/** How long after listening the memory only the start needed is released. */
const RELEASE_START_AFTER_MS = 300;

/**
 * JIT tier-up thresholds of a running server, as a multiple of JavaScriptCore's. At 1, the
 * background work of a quiet server (job polls, the periodic jobs' first runs, sessions coming
 * back) reached the baseline and DFG tiers within its first idle second: ≈2.6 MiB of compiled
 * code and compiler pages kept for code that runs a few times a minute (issue 13, measured on
 * the binary: idle RSS 55.5 → 53.0 MiB). Request paths under load reach the same tiers after
 * ten times the calls, a few milliseconds at the rates where compiling pays; API-key GETs on
 * the binary measured the same (wrk, 3 interleaved rounds).
 */
const SERVE_JIT_POLICY = 10;

/** `parley serve`: runs the HTTP server until SIGTERM/SIGINT. */
export function serveCommand(program: Command, argv: readonly string[] = []): void {
  // every setting of the config schema is also a flag here (a start registers those it is given)
  const given = argv[2] === "serve" ? flagsGiven(argv.slice(3)) : null;
  addConfigFlags(program.command("serve").description("start the server (migrates the database first)"), given)
    .action(async (flags) => {
      const config = await configOrExit(flags, SERVE_FLAG_KEYS);
      mark("config");
      const log = processLogger(config);
      let server;
      try {
        server = await startServer(config, log);
      } catch (err) {
        if (err instanceof DataDirBusyError || err instanceof PortInUseError || err instanceof ListenError) {
          writeErr(`parley: ${err.message}\n`);
          process.exit(1);
        }
        if (err instanceof NewerDatabaseError) {
          writeErr(`parley: ${err.message}\n`);
          process.exit(2);
        }
        log.error("start-up failed", { err });
        process.exit(1);
      }
      let signals = 0;
      const onSignal = (sig: string) => {
        signals++;
        if (signals > 1) {
          log.warn("second signal: exiting at once", { signal: sig });
          process.exit(130);
        }
        log.info("signal received", { signal: sig });
        server.stop().then(
          () => {
            withdrawUrl(config.dataDir);
            process.exit(0);
          },
          (err) => {
            log.error("shutdown failed", { err });
            process.exit(1);
          },
        );
      };
      // operator commands read where to call from the data dir (a wildcard address is reached on loopback)
      const local = config.host === "0.0.0.0" ? "127.0.0.1" : config.host === "::" ? "::1" : config.host;
      announceUrl(config.dataDir, hostUrl(local, server.port));
      // the last line of defence against a full disk: a refused write that escapes a timer or a
      // promise somewhere makes the server unready, not gone (a crash loop under systemd or Docker
      // while the disk stays full); any other uncaught error still ends the process
      const onUncaught = (err: unknown) => {
        if (server.runtime.deps.writeHealth.failed("background write", err, log)) return;
        log.error("uncaught error", { err });
        process.exit(1);
      };
      process.on("uncaughtException", onUncaught);
      process.on("unhandledRejection", onUncaught);
      process.on("SIGTERM", () => onSignal("SIGTERM"));
      process.on("SIGINT", () => onSignal("SIGINT"));
      // machine-readable readiness line for scripts and tests that start on port 0
      if (!isTty(1)) writeStdoutLine(JSON.stringify({ listening: server.url, port: server.port }));
      // a moment after listening (the first requests, health checks, do not wait for it):
      // - what only the start needed is given back: the compiled code of start-up (migrations,
      //   config, routes and schemas being declared; code is made again if something calls it
      //   later), the start's garbage, the allocator's free pages (Bun.shrink: drop code, full
      //   collection, release; ~3 MB resident, issue 13);
      // - the binary starts with JIT tier-up thresholds raised (`--compile-jit-policy` in the
      //   build script): start-up code runs once and is not worth compiling. After the shrink,
      //   so the counts start-up ran up are gone with its code: what it used a lot (array
      //   helpers, zod, drizzle) is not compiled at the next call merely for that (~2 MB of JIT
      //   and compiler pages at idle otherwise). From then on the thresholds are SERVE_JIT_POLICY
      //   times JavaScriptCore's: see there
      setTimeout(() => {
        releaseMemory(); // its shrink runs when this callback returns: nothing runs between the two
        Bun.unsafe.setJITPolicy(SERVE_JIT_POLICY);
        // and later, each time the server has worked and gone quiet (see there)
        releaseWhenIdle(log);
      }, RELEASE_START_AFTER_MS).unref();
    });
}
