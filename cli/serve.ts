import type { Command } from "commander";
import { DataDirBusyError } from "../src/db/lock.ts";
import { PortInUseError, startServer } from "../src/server.ts";
import { configOrExit, DATA_DIR_FLAG, processLogger } from "./context.ts";

/** `parley serve`: runs the HTTP server until SIGTERM/SIGINT. */
export function serveCommand(program: Command): void {
  program
    .command("serve")
    .description("start the server (migrates the database first)")
    .option("--host <host>", "listen address (env PARLEY_HOST, default 127.0.0.1)")
    .option("-p, --port <port>", "listen port (env PARLEY_PORT, default 3000)")
    .option(...DATA_DIR_FLAG)
    .option("--network <driver>", "messaging network: baileys or sim (env PARLEY_NETWORK, default baileys)")
    .option("--log-level <level>", "debug, info, warn, error or silent (env PARLEY_LOG_LEVEL)")
    .option("--log-format <format>", "auto, json or pretty (env PARLEY_LOG_FORMAT)")
    .action(async (flags) => {
      const config = configOrExit(flags);
      const log = processLogger(config);
      let server;
      try {
        server = await startServer(config, log);
      } catch (err) {
        if (err instanceof DataDirBusyError || err instanceof PortInUseError) {
          process.stderr.write(`parley: ${err.message}\n`);
          process.exit(1);
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
          () => process.exit(0),
          (err) => {
            log.error("shutdown failed", { err });
            process.exit(1);
          },
        );
      };
      process.on("SIGTERM", () => onSignal("SIGTERM"));
      process.on("SIGINT", () => onSignal("SIGINT"));
      // machine-readable readiness line for scripts and tests that start on port 0
      if (!process.stdout.isTTY) process.stdout.write(JSON.stringify({ listening: server.url, port: server.port }) + "\n");
    });
}
