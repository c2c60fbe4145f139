import { ManualClock } from "../../src/clock.ts";
import { loadConfig, type ConfigKey } from "../../src/config.ts";
import { silentLogger, type Logger } from "../../src/log.ts";
import { SimDriver, type SimOptions } from "../../src/network/sim/driver.ts";
import { createRuntime, type Runtime, type RuntimeOverrides } from "../../src/runtime.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshPostgres, testEngine } from "./postgres.ts";

export interface TestApp extends Runtime {
  clock: ManualClock;
  sim: SimDriver;
  /** Sends a request through `app.handle` and parses the JSON body. */
  request(method: string, path: string, opts?: RequestOpts): Promise<TestResponse>;
}

export interface RequestOpts {
  body?: unknown;
  token?: string;
  apiKey?: string;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
}

export interface TestAppOptions {
  config?: Partial<Record<ConfigKey, unknown>>;
  clock?: ManualClock;
  sim?: Partial<SimOptions>;
  /** a sim network of the test's own (e.g. a subclass that stalls sends); `sim` options are then ignored */
  simDriver?: SimDriver;
  log?: Logger;
  /** runtime overrides beyond clock and network (notifier, captcha, ...) */
  overrides?: Omit<RuntimeOverrides, "clock" | "network" | "dbPath">;
  /** a file database in the data dir instead of memory (CLI and real-port tests) */
  fileDb?: boolean;
  /**
   * "sqlite": SQLite whatever engine the suite runs on, for tests of what exists on SQLite alone
   * (the data dir's backup, the WAL index); such tests say so in their titles
   */
  engine?: "sqlite";
}

/**
 * A test app with the real migrations, a manual clock and the sim network: on in-memory SQLite,
 * or on a database of its own when the suite runs on PostgreSQL (PARLEY_TEST_DATABASE_URL).
 */
export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-test-"));
  const pg = testEngine === "postgres" && opts.engine !== "sqlite" && opts.config?.databaseUrl === undefined ? await freshPostgres() : undefined;
  const config = loadConfig({ network: "sim", dataDir, logLevel: "silent", captcha: "off", ...(pg ? { databaseUrl: pg.url } : {}), ...opts.config });
  const clock = opts.clock ?? new ManualClock(new Date());
  const sim = opts.simDriver ?? new SimDriver({ latencyMs: 1, ...opts.sim });
  const runtime = await createRuntime(config, opts.log ?? silentLogger, {
    dbPath: opts.fileDb ? undefined : ":memory:",
    clock,
    network: sim,
    secrets: { jwtSecret: "test-secret-".padEnd(48, "x"), credentialKey: "00".repeat(32) },
    ...opts.overrides,
  });
  const close = runtime.close;
  return {
    ...runtime,
    async close() {
      await close();
      await pg?.drop();
      // the data dir made here goes with the app (a test that reopens a data dir brings its own)
      if (config.dataDir === dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
    clock,
    sim,
    request: (method, path, o = {}) => send(runtime, method, path, o),
  };
}

async function send(runtime: Runtime, method: string, path: string, o: RequestOpts): Promise<TestResponse> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.apiKey) headers["x-api-key"] = o.apiKey;
  let body: BodyInit | undefined;
  if (o.body !== undefined) {
    if (o.body instanceof FormData || o.body instanceof Uint8Array) body = o.body as BodyInit;
    else if (typeof o.body === "string") {
      body = o.body; // raw text, e.g. malformed JSON on purpose
      headers["content-type"] ??= "application/json";
    } else {
      body = JSON.stringify(o.body);
      headers["content-type"] ??= "application/json";
    }
  }
  const res = await runtime.app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}
