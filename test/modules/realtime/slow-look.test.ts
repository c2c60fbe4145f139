// The hub's look for slow sockets (one native call per socket) is skipped while no socket can
// be past its bound: the bytes waiting at the last look plus everything handed out since stay
// under half the bound. Once they might not, it looks, and a socket past the bound is closed as before.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { CLOSE_TOO_SLOW, RealtimeHub, SLOW_HARD_FACTOR, type RealtimeClient } from "../../../src/modules/realtime/hub.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";

const MAX = 64 * 1024;
let t: TestApp;
let ws: TestWorkspace;
beforeAll(async () => {
  t = await createTestApp();
  ws = await createWorkspace(t);
});
afterAll(async () => {
  await t.close();
});

/** A socket that never writes anything out: what it is handed stays waiting. */
function stuckClient(workspaceId: string) {
  const c = { looks: 0, waiting: 0, closedWith: 0 };
  const client: RealtimeClient = {
    workspaceId,
    userId: "u",
    role: "owner",
    send: (text) => void (c.waiting += text.length),
    buffered: () => (c.looks++, c.waiting),
    ping() {},
    close: (code) => void (c.closedWith = code),
  };
  return { c, client };
}

async function publish(n: number, body: string): Promise<void> {
  await t.deps.db.tx(async () => {
    for (let i = 0; i < n; i++) await t.deps.bus.publish(ws.id, "message_sent", { messageId: `m${i}`, body });
  });
}

test("small events: a look per many events, not one per event; a socket past the bound is still closed", async () => {
  const hub = new RealtimeHub(t.deps.bus, { pingIntervalMs: 60_000, clock: t.deps.clock, log: t.deps.log, memberRole: async () => "owner", maxBufferedBytes: MAX });
  const { c, client } = stuckClient(ws.id);
  hub.add(client);
  try {
    await publish(50, "x".repeat(20));
    // each event is ≈ 120 bytes (≤ 400 counted): half the bound is ≈ 80 of them
    expect(c.looks).toBe(0);
    expect(c.waiting).toBeGreaterThan(50 * 100);
    // big events: a look before each one (each is past half the bound), and the socket is closed
    // at the first look that finds it past the hard bound (after at most 41 of these)
    await publish(50, "y".repeat((MAX * SLOW_HARD_FACTOR) / 40));
    expect(c.looks).toBeGreaterThan(30);
    expect(c.looks).toBeLessThanOrEqual(42);
    expect(c.closedWith).toBe(CLOSE_TOO_SLOW);
    expect(hub.size()).toBe(0);
  } finally {
    hub.remove(client);
  }
});

test("a socket within the bound after a look: looks resume only once enough was handed out again", async () => {
  const hub = new RealtimeHub(t.deps.bus, { pingIntervalMs: 60_000, clock: t.deps.clock, log: t.deps.log, memberRole: async () => "owner", maxBufferedBytes: MAX });
  const { c, client } = stuckClient(ws.id);
  hub.add(client);
  try {
    await publish(1, "z".repeat(MAX / 4)); // counted ×3: past half the bound at the next event
    expect(c.looks).toBe(0);
    await publish(1, "a");
    expect(c.looks).toBe(1);
    expect(c.closedWith).toBe(0);
    await publish(1, "b"); // a quarter waiting + a few bytes: under half the bound, no look
    expect(c.looks).toBe(1);
  } finally {
    hub.remove(client);
  }
});
