import { expect } from "bun:test";
import type { AppEvent } from "../../../src/events/bus.ts";
import type { TestApp } from "../../helpers/app.ts";
import type { TestWorkspace } from "../../helpers/fixtures.ts";

/** Retries an assertion until it passes (the sim network is asynchronous, like the real one). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 3_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await Bun.sleep(5);
    }
  }
}

/** Records every committed event of the app. */
export function recordEvents(t: TestApp): AppEvent[] {
  const seen: AppEvent[] = [];
  t.deps.bus.subscribe((e) => seen.push(e));
  return seen;
}

/** Creates a session over HTTP and returns its id. */
export async function newSession(t: TestApp, ws: TestWorkspace, name = `s-${Bun.randomUUIDv7().slice(-8)}`): Promise<string> {
  const r = await t.request("POST", "/api/v1/chatapp", { token: ws.owner.token, body: { name } });
  expect(r.status).toBe(201);
  return r.body.data.id;
}

/** The session's status row over HTTP. */
export async function statusOf(t: TestApp, ws: TestWorkspace, id: string): Promise<any> {
  const r = await t.request("GET", `/api/v1/chatapp/${id}/status`, { token: ws.owner.token });
  expect(r.status).toBe(200);
  return r.body.data;
}

/** Connects and scans over HTTP; resolves when the session is connected. */
export async function linkSession(t: TestApp, ws: TestWorkspace, id: string, phone = "919812345678"): Promise<void> {
  const c = await t.request("POST", `/api/v1/chatapp/${id}/connect`, { token: ws.owner.token });
  expect(c.status).toBe(200);
  await eventually(() => expect(t.sim.currentQr(id)).toBeString());
  const s = await t.request("POST", `/api/sim/sessions/${id}/scan`, { token: ws.owner.token, body: { phoneNumber: phone } });
  expect(s.status).toBe(200);
  await eventually(async () => expect((await statusOf(t, ws, id)).status).toBe("connected"));
}

/** The stored (encrypted) credentials column of a session. */
export async function storedCredentials(t: TestApp, id: string): Promise<string | null> {
  return ((await t.deps.db.prepare("SELECT credentials FROM chat_sessions WHERE id = ?").get(id)) as { credentials: string | null }).credentials;
}
