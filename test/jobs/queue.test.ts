import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock, systemClock } from "../../src/clock.ts";
import type { DB } from "../../src/db/store.ts";
import { JobQueue, PermanentJobError, RetryLaterError } from "../../src/jobs/queue.ts";
import { WriteHealth } from "../../src/ops/write-health.ts";
import { silentLogger } from "../../src/log.ts";
import { openTestStore } from "../helpers/store.ts";

let opened: { db: DB; close(): Promise<void> };
let clock: ManualClock;
let q: JobQueue;
const row = async (id: string) => (await opened.db.prepare("SELECT * FROM jobs WHERE id = ?").get(id)) as any;

beforeEach(async () => {
  opened = await openTestStore();
  clock = new ManualClock();
  q = new JobQueue(opened.db, clock, silentLogger, { concurrency: 2, pollMs: 20 }, new WriteHealth());
});
afterEach(async () => {
  await q.stop(100);
  await opened.close();
});

describe("durable jobs", () => {
  test("a job runs once with its payload and is marked done", async () => {
    const seen: unknown[] = [];
    q.register({ kind: "hello", run: (p) => void seen.push(p) });
    const id = await q.enqueue("hello", { n: 1 });
    expect(await q.runDue()).toBe(1);
    expect(seen).toEqual([{ n: 1 }]);
    expect(await row(id)).toMatchObject({ status: "done", attempts: 1 });
    expect(await q.runDue()).toBe(0);
  });

  test("a failing job is retried after its backoff, not before", async () => {
    let calls = 0;
    q.register({
      kind: "flaky",
      backoffMs: () => 5000,
      run: () => {
        calls++;
        if (calls < 3) throw new Error(`fail ${calls}`);
      },
    });
    const id = await q.enqueue("flaky", {});
    await q.runDue();
    expect(await row(id)).toMatchObject({ status: "pending", attempts: 1, last_error: "fail 1" });
    clock.advance(4999);
    expect(await q.runDue()).toBe(0);
    clock.advance(1);
    await q.runDue();
    clock.advance(5000);
    await q.runDue();
    expect(calls).toBe(3);
    expect(await row(id)).toMatchObject({ status: "done", attempts: 3 });
  });

  test("a job that keeps failing stops at its attempt limit with the last error kept", async () => {
    q.register({ kind: "doomed", maxAttempts: 3, backoffMs: () => 10, run: (_p, ctx) => Promise.reject(new Error(`boom #${ctx.attempt}`)) });
    const id = await q.enqueue("doomed", {});
    for (let i = 0; i < 10; i++) {
      await q.runDue();
      clock.advance(10);
    }
    expect(await row(id)).toMatchObject({ status: "failed", attempts: 3, last_error: "boom #3" });
  });

  test("a job that crashed mid-run is claimed again once its lease expires", async () => {
    q.register({ kind: "work", leaseMs: 30_000, run: () => {} });
    const id = await q.enqueue("work", {});
    // simulate a worker that claimed the job and then died (process killed): lease set, never finished
    const now = clock.now().getTime();
    opened.db.prepare("UPDATE jobs SET lease_until = ?, attempts = 1 WHERE id = ?").run(now + 30_000, id);
    expect(await q.runDue()).toBe(0);
    clock.advance(30_000);
    expect(await q.runDue()).toBe(1);
    expect(await row(id)).toMatchObject({ status: "done", attempts: 2 });
  });

  test("a finished worker cannot overwrite a job re-claimed after its lease expired (fencing)", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let runs = 0;
    q.register({ kind: "slow", leaseMs: 60_000, run: async () => { runs++; if (runs === 1) await gate; } });
    const id = await q.enqueue("slow", {});
    const first = q.runDue();
    // the first run is under way (its lease set) before the lease is made to expire, however slow the machine
    while (runs < 1) await Bun.sleep(5);
    // the lease expires while the first run hangs (e.g. the machine was suspended)
    await opened.db.prepare("UPDATE jobs SET lease_until = 0 WHERE id = ?").run(id);
    await q.runDue(); // second claim runs and completes
    expect(await row(id)).toMatchObject({ status: "done", attempts: 2 });
    // an operator then marks it failed; the stale worker's late "done" must not apply
    await opened.db.prepare("UPDATE jobs SET status = 'failed' WHERE id = ?").run(id);
    release();
    await first;
    expect(await row(id)).toMatchObject({ status: "failed", attempts: 2 });
  });

  test("PermanentJobError fails at once; RetryLaterError sets the delay", async () => {
    q.register({ kind: "perm", run: () => { throw new PermanentJobError("bad payload"); } });
    let laterRuns = 0;
    q.register({ kind: "later", run: () => { if (++laterRuns === 1) throw new RetryLaterError(120_000); } });
    const a = await q.enqueue("perm", {});
    const b = await q.enqueue("later", {});
    await q.runDue();
    expect(await row(a)).toMatchObject({ status: "failed", attempts: 1, last_error: "bad payload" });
    // a reschedule, not a failure: the attempt is given back
    expect(await row(b)).toMatchObject({ run_at: clock.now().getTime() + 120_000, attempts: 0 });
    clock.advance(120_000);
    await q.runDue();
    expect((await row(b)).status).toBe("done");
  });

  test("a job that reschedules itself more often than its attempt limit still runs to the end", async () => {
    let runs = 0;
    q.register({ kind: "self", maxAttempts: 2, run: () => { if (++runs < 10) throw new RetryLaterError(10, "more later"); } });
    const id = await q.enqueue("self", {});
    for (let i = 0; i < 12; i++) {
      await q.runDue();
      clock.advance(10);
    }
    expect(runs).toBe(10);
    expect(await row(id)).toMatchObject({ status: "done", attempts: 1 });
  });

  test("enqueue inside a rolled-back transaction leaves no job", async () => {
    q.register({ kind: "tx", run: () => {} });
    const tx = opened.db.tx(async () => {
      await q.enqueue("tx", {});
      throw new Error("rollback");
    });
    await expect(tx).rejects.toThrow("rollback");
    expect(((await opened.db.prepare("SELECT count(*) AS n FROM jobs").get()) as any).n).toBe(0);
  });

  test("a dedupe key keeps one pending job, also when two enqueues race", async () => {
    q.register({ kind: "d", run: () => {} });
    const a = await q.enqueue("d", {}, { dedupeKey: "k" });
    const b = await q.enqueue("d", {}, { dedupeKey: "k" });
    expect(b).toBe(a);
    const raced = await Promise.all([q.enqueue("d", {}, { dedupeKey: "r" }), q.enqueue("d", {}, { dedupeKey: "r" })]);
    expect(raced[1]).toBe(raced[0]);
    expect(((await opened.db.prepare("SELECT count(*) AS n FROM jobs WHERE dedupe_key = 'r'").get()) as any).n).toBe(1);
  });

  test("delayed jobs wait for their time", async () => {
    q.register({ kind: "d", run: () => {} });
    await q.enqueue("d", {}, { delayMs: 1000 });
    expect(await q.runDue()).toBe(0);
    clock.advance(1000);
    expect(await q.runDue()).toBe(1);
  });

  test("the worker loop runs jobs by itself, at most `concurrency` at once", async () => {
    const real = new JobQueue(opened.db, systemClock, silentLogger, { concurrency: 2, pollMs: 10 }, new WriteHealth());
    let active = 0;
    let peak = 0;
    let done = 0;
    real.register({ kind: "c", run: async () => { active++; peak = Math.max(peak, active); await Bun.sleep(10); active--; done++; } });
    for (let i = 0; i < 6; i++) await real.enqueue("c", { i });
    real.start();
    for (let i = 0; i < 200 && done < 6; i++) await Bun.sleep(5);
    await real.stop(1000);
    expect(done).toBe(6);
    expect(peak).toBe(2);
  });

  test("stop releases a job still running after the grace period", async () => {
    const real = new JobQueue(opened.db, systemClock, silentLogger, { concurrency: 1, pollMs: 10 }, new WriteHealth());
    real.register({ kind: "stuck", run: () => new Promise(() => {}) });
    const id = await real.enqueue("stuck", {});
    real.start();
    for (let i = 0; i < 100 && (await row(id)).lease_until === null; i++) await Bun.sleep(5);
    await real.stop(20);
    expect(await row(id)).toMatchObject({ status: "pending", lease_until: null, attempts: 0 });
  });
});

test("releaseAbandoned frees the leases of a dead process at start-up (SQLite, one server), never another node's (PostgreSQL), keeping the attempt count", async () => {
  const o = await openTestStore();
  const c = new ManualClock();
  const q2 = new JobQueue(o.db, c, silentLogger, { concurrency: 1, pollMs: 10 }, new WriteHealth());
  let ran = 0;
  q2.register({ kind: "k", run: () => void ran++ });
  const id = await q2.enqueue("k", {});
  await o.db.prepare("UPDATE jobs SET lease_until = ?, attempts = 1 WHERE id = ?").run(c.now().getTime() + 3_600_000, id);
  expect(await q2.runDue()).toBe(0); // still leased by the dead worker
  if (o.db.engine === "postgres") {
    // the lease may be a live node's: left alone, and claimable once it runs out
    expect(await q2.releaseAbandoned()).toBe(0);
    expect(await q2.runDue()).toBe(0);
    c.advance(3_600_001);
  } else {
    expect(await q2.releaseAbandoned()).toBe(1);
  }
  expect(await q2.runDue()).toBe(1);
  expect(ran).toBe(1);
  expect((await o.db.prepare("SELECT attempts, status FROM jobs WHERE id = ?").get(id)) as any).toEqual({ attempts: 2, status: "done" });
  await o.close();
});
