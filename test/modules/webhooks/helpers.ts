import type { EventName } from "../../../src/events/bus.ts";
import type { EmailMessage } from "../../../src/notify/notifier.ts";
import { createTestApp, type TestApp, type TestAppOptions } from "../../helpers/app.ts";
import type { TestWorkspace } from "../../helpers/fixtures.ts";
import { RecordingNotifier } from "../../helpers/notifier.ts";

/** A test app whose webhooks may target the loopback receiver over plain HTTP (operator settings). */
export function webhookApp(config: TestAppOptions["config"] = {}): Promise<TestApp> {
  return createTestApp({
    config: { webhookAllowHttp: true, webhookAllowPrivate: true, webhookRetrySchedule: "0,10,60,300", ...config },
    overrides: { notifier: new RecordingNotifier() },
  });
}

/** Marks a session of the workspace connected, as the sessions module would (webhook creation needs one). */
export async function connectSession(t: TestApp, workspaceId: string): Promise<string> {
  const id = Bun.randomUUIDv7();
  const now = t.clock.now().getTime();
  await t.deps.db
    .prepare(`INSERT INTO chat_sessions (id, workspace_id, name, status, phone_number, connected_at, created_at, updated_at) VALUES (?, ?, ?, 'connected', '919800000000', ?, ?, ?)`)
    .run(id, workspaceId, `s-${id.slice(-8)}`, now, now, now);
  return id;
}

/** Creates a webhook through the API and returns its id and secret. */
export async function createHook(t: TestApp, ws: TestWorkspace, url: string, events: string[] = ["message_received"], name = "hook"): Promise<{ id: string; secret: string }> {
  const r = await t.request("POST", "/api/webhooks", { token: ws.owner.token, body: { name, url, events } });
  if (r.status !== 201) throw new Error(`webhook create failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: r.body.data.id, secret: r.body.data.secret };
}

/** Publishes an event the way every module does: inside a bus transaction. */
export function emit(t: TestApp, workspaceId: string, event: EventName, data: Record<string, unknown>) {
  return t.deps.db.tx(() => t.deps.bus.publish(workspaceId, event, data));
}

export async function deliveries(t: TestApp, webhookId: string): Promise<any[]> {
  return (await t.deps.db.prepare("SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id").all(webhookId)) as any[];
}

/** Mail the log channel recorded. */
export function mails(t: TestApp): EmailMessage[] {
  return (t.deps.notifier as RecordingNotifier).emails;
}

/** Waits (bounded) until `cond` holds; for conditions that real I/O makes true. */
export async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const end = performance.now() + ms;
  while (!(await cond())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}
