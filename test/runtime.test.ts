import { afterAll, describe, expect, test } from "bun:test";
import type { Logger } from "../src/log.ts";
import { PERIODIC_START_DELAY_MS, STOP_ORDER } from "../src/runtime.ts";
import { createTestApp, type TestApp } from "./helpers/app.ts";
import { createWorkspace } from "./helpers/fixtures.ts";

/** A logger that keeps what the runtime says it stopped, in order. */
function stopRecorder(): { log: Logger; stopped: string[] } {
  const stopped: string[] = [];
  const log: Logger = {
    debug: (msg, f) => void (msg === "stopped" && stopped.push(String(f?.part))),
    info: () => {},
    warn: () => {},
    error: () => {},
    child: () => log,
    enabled: () => true,
  };
  return { log, stopped };
}

/** Wraps a method of a real service so each call is written down, then runs the method itself. */
function observe<T extends object, K extends keyof T>(calls: string[], name: string, target: T, method: K): void {
  const real = target[method] as (...args: unknown[]) => unknown;
  target[method] = ((...args: unknown[]) => {
    calls.push(name);
    return real.apply(target, args);
  }) as T[K];
}

/** The real services of a runtime, each observed where the runtime stops it. */
function observeStops(t: TestApp): string[] {
  const calls: string[] = [];
  observe(calls, "realtime", t.services.realtime, "closeAll");
  observe(calls, "sessions", t.services.sessions, "stop");
  observe(calls, "jobs", t.deps.jobs, "stop");
  observe(calls, "network", t.deps.network, "shutdown");
  observe(calls, "sessions.settled", t.services.sessions, "settled");
  observe(calls, "messaging", t.services.messaging, "stop");
  observe(calls, "webhooks", t.services.webhooks, "stop");
  observe(calls, "apikeys.lastUsed", t.deps.lastUsed, "flush");
  observe(calls, "apikeys.apiQuota", t.deps.apiQuota, "flush");
  observe(calls, "store", t.deps.db, "close");
  return calls;
}

const OBSERVED_ORDER = ["realtime", "sessions", "jobs", "network", "sessions.settled", "messaging", "webhooks", "apikeys.lastUsed", "apikeys.apiQuota", "store"];

describe("one owner of lifecycle: the runtime stops every part once, in one order", () => {
  test("stop() stops all but the store; close() goes on from there; calling either again stops nothing twice", async () => {
    const rec = stopRecorder();
    const t = await createTestApp({ log: rec.log });
    await t.services.start(); // restoring sessions under way: the stop waits for it
    const calls = observeStops(t);

    await Promise.all([t.stop(), t.stop()]);
    expect(calls).toEqual(OBSERVED_ORDER.slice(0, -1));
    expect(rec.stopped).toEqual(STOP_ORDER.slice(0, STOP_ORDER.indexOf("checkpointer")));
    // the store is still open between stop and close (what the flushes wrote can be read)
    expect(await t.deps.db.prepare("SELECT 1 AS one").get()).toEqual({ one: 1 });

    await t.close();
    await t.close();
    await t.stop();
    expect(calls).toEqual(OBSERVED_ORDER);
    expect(rec.stopped).toEqual([...STOP_ORDER]);
  });

  test("close() alone runs the whole order once", async () => {
    const rec = stopRecorder();
    const t = await createTestApp({ log: rec.log });
    const calls = observeStops(t);
    await Promise.all([t.close(), t.close()]);
    expect(calls).toEqual(OBSERVED_ORDER);
    expect(rec.stopped).toEqual([...STOP_ORDER]);
  });

  test("a listening app: its sockets close with 1001 first, then it stops listening, then the rest", async () => {
    const rec = stopRecorder();
    const t = await createTestApp({ log: rec.log });
    const a = await createWorkspace(t);
    t.app.listen({ hostname: "127.0.0.1", port: 0 });
    const ws = new WebSocket(`ws://127.0.0.1:${t.app.server!.port}/api/ws?token=${a.owner.token}`);
    await new Promise<void>((resolve, reject) => {
      ws.onmessage = (m) => JSON.parse(String(m.data)).event === "ready" && resolve();
      ws.onerror = () => reject(new Error("websocket failed"));
    });
    const closed = new Promise<number>((r) => (ws.onclose = (e) => r(e.code)));
    const calls = observeStops(t);

    await t.close();
    // the hub the routes were given is the runtime's: closing it closed the client's socket
    expect(await closed).toBe(1001);
    expect(t.app.server).toBeNull();
    expect(calls).toEqual(OBSERVED_ORDER);
    expect(rec.stopped.indexOf("realtime")).toBeLessThan(rec.stopped.indexOf("http"));
    expect(rec.stopped).toEqual([...STOP_ORDER]);
  });

  test("a failing part is reported and the parts after it still stop (the store closes)", async () => {
    const rec = stopRecorder();
    const t = await createTestApp({ log: rec.log });
    const calls = observeStops(t);
    t.deps.jobs.stop = async () => {
      throw new Error("jobs would not stop");
    };
    await expect(t.close()).rejects.toThrow("jobs would not stop");
    expect(calls).toEqual(OBSERVED_ORDER.filter((c) => c !== "jobs"));
    expect(rec.stopped).toEqual(STOP_ORDER.filter((s) => s !== "jobs"));
  });
});

describe("one owner of lifecycle: every stateful service is built once per runtime and handed to its users", () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const t of apps) await t.close();
  });

  test("two runtimes share no service; the app's routes and guard use the runtime's own", async () => {
    const [t, other] = [await createTestApp(), await createTestApp()];
    apps.push(t, other);
    for (const k of ["hasher", "apiQuota", "lastUsed", "deliveries", "sends", "writeHealth", "jobs", "bus"] as const) expect(t.deps[k]).not.toBe(other.deps[k]);
    expect(t.deps.limiters.user).not.toBe(other.deps.limiters.user);
    for (const k of ["sessions", "realtime", "webhooks", "messaging"] as const) expect(t.services[k]).not.toBe(other.services[k]);

    const a = await createWorkspace(t);
    // the login route verifies with the runtime's hasher
    const verified = t.deps.hasher.stats().verifications;
    await t.request("POST", "/api/auth/login", { body: { email: a.owner.email, password: "correct horse battery" } });
    expect(t.deps.hasher.stats().verifications).toBe(verified + 1);
    expect(other.deps.hasher.stats().verifications).toBe(0);

    // the guard counts a member's request in the runtime's limiter
    expect((await t.request("GET", "/api/v1/chatapp", { token: a.owner.token })).status).toBe(200);
    const limit = t.deps.config.rateLimitPerMinute;
    expect((await t.deps.limiters.user.hit(a.owner.userId)).remaining).toBe(limit - 2);
    expect((await other.deps.limiters.user.hit(a.owner.userId)).remaining).toBe(limit - 1);

    // an API key's request: its use and its daily count are kept by the runtime's tracker and quota
    const key = (await t.request("POST", "/api/api-keys", { token: a.owner.token, body: { name: "k" } })).body.data;
    const taken: string[] = [];
    observe(taken, "take", t.deps.apiQuota, "take");
    expect((await t.request("GET", "/api/external/contacts", { apiKey: key.key })).status).toBe(200);
    expect(t.deps.lastUsed.peek(key.id)).toBe(t.clock.now().getTime());
    expect(taken).toEqual(["take"]);
    expect(other.deps.lastUsed.peek(key.id)).toBeUndefined();

    // the sessions routes drive the runtime's session manager
    const s = (await t.request("POST", "/api/v1/chatapp", { token: a.owner.token, body: { name: "main" } })).body.data;
    expect((await t.request("POST", `/api/v1/chatapp/${s.id}/connect`, { token: a.owner.token })).status).toBe(200);
    expect(t.services.sessions.isLive(s.id)).toBe(true);
    expect(other.services.sessions.isLive(s.id)).toBe(false);
  });
});

describe("the services start in turns of the event loop", () => {
  test("each part waits for a turn (a request that came in meanwhile is answered between parts); a turn answering false stops there", async () => {
    const t = await createTestApp();
    try {
      const parts: string[] = [];
      observe(parts, "messaging", t.services.messaging, "start");
      observe(parts, "restore", t.services.sessions, "restore");
      let turns = 0;
      // between the turns, a request is answered: the routes and the store are ready already
      await t.services.start(async () => {
        turns++;
        expect((await t.request("GET", "/health")).status).toBe(200);
        return turns < 3;
      });
      // webhooks, then messaging; the third turn said stop: no campaigns sweep, no restore
      expect(turns).toBe(3);
      expect(parts).toEqual(["messaging"]);
      expect(t.deps.leases.running).toBe(false);
    } finally {
      await t.close();
    }
  });

  test("by default every part starts, the sessions' restore last", async () => {
    const t = await createTestApp();
    try {
      const parts: string[] = [];
      observe(parts, "messaging", t.services.messaging, "start");
      observe(parts, "restore", t.services.sessions, "restore");
      await t.services.start();
      expect(parts).toEqual(["messaging", "restore"]);
      await t.services.restored();
      expect(t.deps.leases.running).toBe(true);
    } finally {
      await t.close();
    }
  });
});

describe("the periodic jobs start a moment after the runtime (their scheduler is loaded then)", () => {
  /** A periodic job every second that counts its runs. */
  const ticker = () => {
    const job = { name: "test.tick", schedule: "* * * * * *", runs: 0, run: () => void job.runs++ };
    return job;
  };

  test("they run once started, and no more after the stop", async () => {
    const t = await createTestApp();
    const job = ticker();
    try {
      t.services.periodic.push(job);
      await t.start();
      for (let i = 0; i < 100 && job.runs === 0; i++) await Bun.sleep(100);
      expect(job.runs).toBeGreaterThan(0);
      await t.stop();
      const runs = job.runs;
      await Bun.sleep(1_500); // a second of the schedule: stopped, it does not run
      expect(job.runs).toBe(runs);
    } finally {
      await t.close();
    }
  });

  test("a stop before they start leaves them unstarted", async () => {
    const t = await createTestApp();
    const job = ticker();
    try {
      t.services.periodic.push(job);
      await t.start();
      await t.stop();
      await Bun.sleep(PERIODIC_START_DELAY_MS + 1_500);
      expect(job.runs).toBe(0);
    } finally {
      await t.close();
    }
  });
});
