import type { AppEvent } from "../../../src/events/bus.ts";
import type { TestApp } from "../../helpers/app.ts";
import { apiKeyFor, type TestWorkspace } from "../../helpers/fixtures.ts";

let phoneSeq = 0;

/** Polls until `fn` returns a truthy value (short real sleeps; the sim is asynchronous). */
export async function waitFor<T>(fn: () => T | Promise<T>, what = "condition", timeoutMs = 5000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(2);
  }
}

/**
 * A connected session without the sessions module: the row is inserted as `connected` and
 * the sim network links it (connect, QR, scan).
 */
export async function connectedSession(t: TestApp, ws: TestWorkspace, opts: { phone?: string; name?: string } = {}): Promise<{ id: string; phone: string }> {
  const id = Bun.randomUUIDv7();
  const phone = opts.phone ?? `9198${String(10_000_000 + ++phoneSeq).slice(-8)}`;
  const now = t.clock.now().getTime();
  await t.deps.db
    .prepare(
      `INSERT INTO chat_sessions (id, workspace_id, name, status, phone_number, connected_at, created_at, updated_at)
       VALUES (?, ?, ?, 'connected', ?, ?, ?, ?)`,
    )
    .run(id, ws.id, opts.name ?? `session ${phoneSeq}`, phone, now, now, now);
  await t.sim.connect(id, { credentials: null });
  await waitFor(() => t.sim.currentQr(id), "QR");
  t.sim.scan(id, phone);
  return { id, phone };
}

/** Records every committed event of the bus. */
export function recordEvents(t: TestApp): AppEvent[] {
  const events: AppEvent[] = [];
  t.deps.bus.subscribe((e) => events.push(e));
  return events;
}

/** Runs every due job until none is left (the sender reschedules itself per message). */
export async function drain(t: TestApp): Promise<number> {
  let total = 0;
  for (let i = 0; i < 1000; i++) {
    const n = await t.deps.jobs.runDue();
    total += n;
    await Bun.sleep(1); // the sender's re-check runs on a timer
    if (n === 0 && (await t.deps.jobs.runDue()) === 0) return total;
  }
  return total;
}

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Inserts an API key of the workspace and returns the key. */
export async function createApiKey(t: TestApp, ws: TestWorkspace): Promise<string> {
  return (await apiKeyFor(t, ws, "test key")).key;
}

/** The status of a message straight from the table. */
export async function statusOf(t: TestApp, id: string): Promise<string | undefined> {
  return ((await t.deps.db.prepare("SELECT status FROM messages WHERE id = ?").get(id)) as { status: string } | undefined)?.status;
}
