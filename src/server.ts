import { mark } from "./start-mark.ts";
import { mkdirSync } from "node:fs";
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";
import { lockDataDir } from "./db/lock.ts";
import { describeStore } from "./db/open.ts";
import { SLOW_HARD_FACTOR } from "./modules/realtime/hub.ts";
import { createRuntime, type Runtime } from "./runtime.ts";
import { hostUrl, publicBaseUrl } from "./http/public-url.ts";
import { logFirstSteps } from "./modules/setup/start-log.ts";
import { failureBody } from "./http/envelope.ts";
import { ERROR_CODES } from "./errors.ts";
import { listenApp } from "./http/listen.ts";

/** The listen address is taken (by another Parley or any other program). */
export class PortInUseError extends Error {
  constructor(host: string, port: number) {
    super(`port ${port} on ${host} is already in use; stop the other server or choose another port (--port / PARLEY_PORT)`);
    this.name = "PortInUseError";
  }
}

/** Any other listen failure the operator must fix (an address not on this machine, a privileged port), said in one line. */
export class ListenError extends Error {
  constructor(host: string, port: number, code: string | undefined) {
    super(
      code === "EACCES"
        ? `permission denied to listen on port ${port} (ports below 1024 need root or CAP_NET_BIND_SERVICE); choose another port (--port / PARLEY_PORT)`
        : code === "EADDRNOTAVAIL" || code === "EINVAL" || code === "EEXIST"
          ? `cannot listen on ${host}: not an address of this machine or not a valid host name (--host / PARLEY_HOST; 127.0.0.1, 0.0.0.0 or :: usually)`
          : `cannot listen on ${host} port ${port} (${code ?? "unknown error"})`,
    );
    this.name = "ListenError";
  }
}

/** The largest message a WebSocket client may send (Elysia JSON-parses each one). */
export const WS_MAX_PAYLOAD = 64 * 1024;

/** Bun's WebSocket settings of the server (tests that listen themselves use them too). */
export function websocketOptions(config: Pick<Config, "wsMaxBufferedBytes">) {
  return {
    // /api/ws clients only send pings; Bun's default (16 MB) lets any member make the server
    // JSON-parse 16 MB of nesting per message (0.7 s and 700 MB each). Larger: closed, 1009
    maxPayloadLength: WS_MAX_PAYLOAD,
    // Bun queues up to 16 MB by default for a socket that does not read, then drops events in
    // silence; the hub closes such a socket (4009, reload) once it stays wsMaxBufferedBytes
    // behind or is SLOW_HARD_FACTOR times that, and Bun's own limit sits just above the latter
    backpressureLimit: config.wsMaxBufferedBytes * SLOW_HARD_FACTOR + 1024 * 1024,
    closeOnBackpressureLimit: false,
  };
}

export interface RunningServer {
  runtime: Runtime;
  port: number;
  url: string;
  /** Graceful stop: no new connections, jobs finished or released, database closed. */
  stop(): Promise<void>;
}

/** A port free on `host` now (the kernel's pick for port 0); another process could take it before we listen, which then fails as PortInUseError. */
function freePort(host: string): number {
  try {
    const probe = Bun.serve({ hostname: host, port: 0, reusePort: false, fetch: () => new Response() });
    const port = probe.port ?? 0;
    probe.stop(true);
    return port;
  } catch {
    return 0; // a host we cannot listen on: the real listen below says why, in one line
  }
}

/** A listen failure said as the setting to fix (PortInUseError, ListenError), or the error itself. */
function listenFailure(err: unknown, host: string, port: number): unknown {
  const code = (err as { code?: string }).code;
  if (code === "EADDRINUSE") return new PortInUseError(host, port);
  // Bun answers an address it cannot bind (999.1.1.1, a name that does not resolve) with EINVAL,
  // or on some machines with EEXIST
  if (code === "EACCES" || code === "EADDRNOTAVAIL" || code === "EINVAL" || code === "EEXIST") return new ListenError(host, port, code);
  return err;
}

/** PostgreSQL: the data dir holds media and the URL file only, and is not locked (nodes may share one). */
function dataDirOnly(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  return () => {};
}

/** Starts Parley: migrate, listen, then the runtime's background work (jobs, services, periodic jobs). */
export async function startServer(config: Config, log: Logger): Promise<RunningServer> {
  // `--port 0`: the port is chosen before the app is built, so links in mail and media URLs
  // (publicUrl's default is the listen address) name the port the server really listens on
  if (config.port === 0) config = Object.freeze({ ...config, port: freePort(config.host) });
  // one server per SQLite data dir (two would run the same jobs and sessions); the nodes of a
  // PostgreSQL cluster share their database instead, and claim work row by row
  const unlock = config.databaseUrl ? dataDirOnly(config.dataDir) : lockDataDir(config.dataDir);
  let runtime: Runtime;
  try {
    runtime = await createRuntime(config, log);
  } catch (err) {
    unlock();
    throw err;
  }
  mark("runtime created");
  const freed = await runtime.deps.jobs.releaseAbandoned();
  if (freed) log.warn("released jobs left running by a previous process", { jobs: freed });
  try {
    // Elysia's listen without its second pass (see there): the app's WebSocket handlers, its onStart hooks
    listenApp(runtime.app, {
      hostname: config.host,
      port: config.port,
      // Elysia turns SO_REUSEPORT on: a second server would share the port and take half the requests
      reusePort: false,
      // every body cap (JSON 1 MiB, media) is enforced in the app, inside the envelope, also for
      // chunked bodies; Bun's own limit would answer a bare 413 before the app sees the request
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      websocket: websocketOptions(config),
      // last resort for anything thrown outside Elysia's own error handling
      error: (err) => {
        const requestId = Bun.randomUUIDv7();
        log.error("unhandled server error", { requestId, err });
        return new Response(JSON.stringify(failureBody("INTERNAL_ERROR", ERROR_CODES.INTERNAL_ERROR.message, requestId)), {
          status: 500,
          headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId },
        });
      },
    });
  } catch (err) {
    await runtime.close();
    unlock();
    throw listenFailure(err, config.host, config.port);
  }
  mark("listening");
  const server = runtime.app.server!;
  await runtime.start();
  mark("runtime started");
  const url = hostUrl(config.host, server.port ?? config.port);
  log.info("parley listening", { url, network: config.network, dataDir: config.dataDir, database: describeStore(config), version: runtime.deps.version });
  await logFirstSteps(runtime.deps, log, `${config.publicUrl ? publicBaseUrl(config) : hostUrl(config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host, server.port ?? config.port)}/app/`);
  mark("first steps logged");
  let stopping: Promise<void> | null = null;
  return {
    runtime,
    port: server.port ?? config.port,
    url,
    stop() {
      stopping ??= (async () => {
        log.info("shutting down");
        // the runtime stops every part in its one order: listening first, the database last
        await runtime.close();
        unlock();
        log.info("stopped");
      })();
      return stopping;
    },
  };
}
