import { afterEach, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { connectedSession, recordEvents, statusOf } from "./helpers.ts";

let t: TestApp;
let ws: TestWorkspace;
let session: { id: string; phone: string };
const setup = async (config: Record<string, unknown>) => {
  t = await createTestApp({ config });
  ws = await createWorkspace(t);
  session = await connectedSession(t, ws);
};
afterEach(() => t.close());

const send = async (body: string) => {
  const r = await t.request("POST", "/api/v1/messages/send", { token: ws.owner.token, body: { session_id: session.id, to: "919876543210", body } });
  expect(r.status).toBe(202);
  return r.body.data.id as string;
};

describe("one job run drains a session's queue", () => {
  test("pacing off: every queued message goes out, in order, the session's job running again at once (no gap, the clock never moves)", async () => {
    await setup({ sendMinGapMs: 0, sendJitterMs: 0 });
    const events = recordEvents(t);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await send(`m${i}`));
    // one run sends what fits in its time slice (all 30 on a quiet machine) and comes back at once
    // for the rest (runDue runs it again): a few runs, not one per message, however loaded the machine
    const runs = await t.deps.jobs.runDue();
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(runs).toBeLessThan(30);
    expect((await Promise.all(ids.map((id) => statusOf(t, id))))).toEqual(ids.map(() => "sent"));
    expect(t.sim.sent.filter((s) => s.sessionId === session.id).map((s) => s.message.text)).toEqual(ids.map((_, i) => `m${i}`));
    expect(events.filter((e) => e.event === "message_sent").map((e) => e.data.messageId)).toEqual(ids);
  });

  test("pacing on: a run sends one message and the job comes back after the gap", async () => {
    await setup({ sendMinGapMs: 60_000, sendJitterMs: 0 });
    const a = await send("first");
    const b = await send("second");
    expect(await t.deps.jobs.runDue()).toBe(1);
    expect([(await statusOf(t, a)), (await statusOf(t, b))]).toEqual(["sent", "queued"]);
    expect(await t.deps.jobs.runDue()).toBe(0); // the gap has not passed
    t.clock.advance(60_000);
    expect(await t.deps.jobs.runDue()).toBe(1);
    expect((await statusOf(t, b))).toBe("sent");
  });

  test("a failure in the middle of a drain retries that message and holds the ones behind it (order kept)", async () => {
    await setup({ sendMinGapMs: 0, sendJitterMs: 0, sendMaxAttempts: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await send(`n${i}`));
    t.sim.failNextSends(session.id, 1, "rate_limited");
    await t.deps.jobs.runDue();
    expect((await Promise.all(ids.map((id) => statusOf(t, id))))).toEqual(["queued", "queued", "queued"]);
    t.clock.advance(60_000);
    await t.deps.jobs.runDue();
    expect((await Promise.all(ids.map((id) => statusOf(t, id))))).toEqual(["sent", "sent", "sent"]);
    expect(t.sim.sent.filter((s) => s.sessionId === session.id).map((s) => s.message.text)).toEqual(["n0", "n1", "n2"]);
  });
});
