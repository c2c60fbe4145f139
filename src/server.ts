import type { Config } from "./config.ts";
import { startPeriodic } from "./jobs/periodic.ts";
import type { Logger } from "./log.ts";
import { lockDataDir } from "./db/lock.ts";
import { closeRealtime } from "./modules/realtime/routes.ts";
import { createRuntime, type Runtime } from "./runtime.ts";
import { hostUrl } from "./http/public-url.ts";

export interface RunningServer {
  runtime: Runtime;
  port: number;
  url: string;
  /** Graceful stop: no new connections, jobs finished or released, database closed. */
  stop(): Promise<void>;
}

/** Starts Parley: migrate, listen, start jobs, periodic jobs and services. */
export async function startServer(config: Config, log: Logger): Promise<RunningServer> {
  const unlock = lockDataDir(config.dataDir);
  let runtime: Runtime;
  try {
    runtime = await createRuntime(config, log);
  } catch (err) {
    unlock();
    throw err;
  }
  const freed = runtime.deps.jobs.releaseAbandoned();
  if (freed) log.warn("released jobs left running by a previous process", { jobs: freed });
  // Elysia's own listen wires its WebSocket handlers into Bun.serve
  runtime.app.listen({
    hostname: config.host,
    port: config.port,
    // the per-route caps (JSON 1 MiB, media) are enforced in the app, inside the envelope
    maxRequestBodySize: config.mediaBodyLimit + 1024 * 1024,
  });
  const server = runtime.app.server!;
  runtime.deps.jobs.start();
  const periodic = startPeriodic(runtime.services.periodic, log);
  await runtime.services.start();
  const url = hostUrl(config.host, server.port ?? config.port);
  log.info("parley listening", { url, network: config.network, dataDir: config.dataDir, version: runtime.deps.version });
  let stopping: Promise<void> | null = null;
  return {
    runtime,
    port: server.port ?? config.port,
    url,
    stop() {
      stopping ??= (async () => {
        log.info("shutting down");
        periodic.stop();
        closeRealtime(runtime.deps); // open WebSockets would hold the graceful stop below forever
        await runtime.app.stop(false); // stop accepting; in-flight requests finish
        await runtime.close();
        unlock();
        log.info("stopped");
      })();
      return stopping;
    },
  };
}
