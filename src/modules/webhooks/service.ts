import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { WebhookEvent } from "../../events/bus.ts";
import { assertSafeUrl, UrlGuardError } from "../../net/url-guard.ts";
import { assertQuota } from "../billing/quota.ts";
import { cursorPagination, type CursorPagination } from "../../http/cursor.ts";
import { attemptDelivery, leaseMs } from "./deliver.ts";
import type { CreateWebhookInput, HistoryEntryOut, HistoryQuery, UpdateWebhookInput, WebhookOut } from "./model.ts";
import { eventPayload } from "./outbox.ts";
import * as repo from "./repo.ts";
import { sampleData } from "./samples.ts";
import { newSecret, sealSecret } from "./signing.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The API shape of a webhook (never the secret). */
export function toWebhookOut(w: repo.WebhookRow): WebhookOut {
  return {
    id: w.id,
    name: w.name,
    url: w.url,
    events: w.events,
    isActive: w.isActive,
    disabledReason: w.disabledReason ?? null,
    createdAt: iso(w.createdAt)!,
    updatedAt: iso(w.updatedAt)!,
  };
}

/** The API shape of a delivery history entry. */
export function toHistoryEntry(d: repo.DeliveryRow): HistoryEntryOut {
  return {
    id: d.id,
    eventType: d.eventType,
    status: d.status,
    responseStatus: d.responseStatus,
    deliveredAt: iso(d.deliveredAt),
    attempts: d.attempts,
    durationMs: d.durationMs,
    error: d.error,
    nextAttemptAt: iso(d.nextAttemptAt),
    lastAttemptAt: iso(d.lastAttemptAt),
    responseBody: d.responseBody,
    isTest: d.isTest,
    createdAt: iso(d.createdAt)!,
  };
}

/** Save-time URL check (docs/webhooks.md); refusals are validation errors on `url`. */
async function checkedUrl(deps: AppDeps, url: string): Promise<string> {
  try {
    return await assertSafeUrl(url, { allowHttp: deps.config.webhookAllowHttp, allowPrivate: deps.config.webhookAllowPrivate });
  } catch (err) {
    if (err instanceof UrlGuardError) throw errors.validation({ url: err.message }, "Webhook URL refused");
    throw err;
  }
}

async function mustGet(deps: AppDeps, workspaceId: string, id: string): Promise<repo.WebhookRow> {
  const w = await repo.getWebhook(deps.db, workspaceId, id);
  if (!w) throw errors.notFound("Webhook");
  return w;
}

export async function listWebhooks(deps: AppDeps, workspaceId: string): Promise<WebhookOut[]> {
  return (await repo.listWebhooks(deps.db, workspaceId)).map(toWebhookOut);
}

export async function getWebhook(deps: AppDeps, workspaceId: string, id: string): Promise<WebhookOut> {
  return toWebhookOut(await mustGet(deps, workspaceId, id));
}

/** Creates a webhook; needs a connected session (409) and room in the plan (403). The secret is returned only here. */
export async function createWebhook(deps: AppDeps, workspaceId: string, userId: string | null, input: CreateWebhookInput): Promise<WebhookOut & { secret: string }> {
  const url = await checkedUrl(deps, input.url);
  const secret = newSecret();
  const now = deps.clock.now().getTime();
  const id = Bun.randomUUIDv7();
  await deps.db.tx(async () => {
    if (!(await repo.hasConnectedSession(deps.db, workspaceId))) throw errors.conflict("Creating a webhook requires a connected session");
    await assertQuota(deps, workspaceId, "webhooks", await repo.countWebhooks(deps.db, workspaceId));
    await repo.insertWebhook(deps.db, workspaceId, {
      id, name: input.name, url, events: input.events, secretEnc: sealSecret(secret, deps.secrets.credentialKey),
      isActive: true, createdBy: userId, createdAt: now, updatedAt: now,
    });
  });
  return { ...(await getWebhook(deps, workspaceId, id)), secret };
}

/** Changes name, url, events or isActive; turning a webhook back on forgets why it was off. */
export async function updateWebhook(deps: AppDeps, workspaceId: string, id: string, input: UpdateWebhookInput): Promise<WebhookOut> {
  await mustGet(deps, workspaceId, id);
  const url = input.url === undefined ? undefined : await checkedUrl(deps, input.url);
  const change: Parameters<typeof repo.updateWebhook>[3] = { updatedAt: deps.clock.now().getTime() };
  if (input.name !== undefined) change.name = input.name;
  if (url !== undefined) change.url = url;
  if (input.events !== undefined) change.events = input.events;
  if (input.isActive !== undefined) Object.assign(change, { isActive: input.isActive, disabledReason: null, failingSince: null, lastFailureAt: null });
  await deps.db.tx(async () => {
    if (!(await repo.updateWebhook(deps.db, workspaceId, id, change))) throw errors.notFound("Webhook");
    if (input.isActive === false) await deps.deliveries.park(workspaceId, id);
    if (input.isActive === true) await deps.deliveries.unpark(workspaceId, id, change.updatedAt!);
  });
  return getWebhook(deps, workspaceId, id);
}

/** Deletes a webhook and its delivery history. */
export async function deleteWebhook(deps: AppDeps, workspaceId: string, id: string): Promise<void> {
  if (!(await repo.deleteWebhook(deps.db, workspaceId, id))) throw errors.notFound("Webhook");
}

/** A new secret, effective at once (attempts sign when they are sent). */
export async function rotateSecret(deps: AppDeps, workspaceId: string, id: string): Promise<{ id: string; secret: string }> {
  const secret = newSecret();
  const done = await repo.updateWebhook(deps.db, workspaceId, id, { secretEnc: sealSecret(secret, deps.secrets.credentialKey), updatedAt: deps.clock.now().getTime() });
  if (!done) throw errors.notFound("Webhook");
  return { id, secret };
}

/** Delivery history: numbered pages with a total, or (with `before`/`after`) a keyset page with cursors like the message lists. */
export async function history(
  deps: AppDeps,
  workspaceId: string,
  id: string,
  q: HistoryQuery,
): Promise<{ entries: HistoryEntryOut[]; total: number; cursor?: undefined } | { entries: HistoryEntryOut[]; cursor: CursorPagination; total?: undefined }> {
  await mustGet(deps, workspaceId, id);
  if (q.before || q.after) {
    const { rows, hasMore } = await repo.pageDeliveries(deps.db, workspaceId, id, q);
    return { entries: rows.map(toHistoryEntry), cursor: cursorPagination(rows.map((r) => r.id), hasMore, q) };
  }
  const { rows, total } = await repo.listDeliveries(deps.db, workspaceId, id, q);
  return { entries: rows.map(toHistoryEntry), total };
}

/** Sends a sample of the first subscribed event now (X-Webhook-Test: true); it is kept in the history. */
export async function sendTest(deps: AppDeps, workspaceId: string, id: string): Promise<{ delivered: boolean; responseStatus: number; deliveryId: string }> {
  const w = await mustGet(deps, workspaceId, id);
  const event = w.events[0] as WebhookEvent;
  const at = deps.clock.now();
  const payload = eventPayload({ event, timestamp: at.toISOString(), data: sampleData(event, at) });
  const deliveryId = Bun.randomUUIDv7();
  const now = at.getTime();
  // inserted already claimed (attempt 1, leased): the dispatcher never picks a test up
  const rowid = await repo.insertDelivery(deps.db, workspaceId, {
    id: deliveryId, webhookId: id, eventId: Bun.randomUUIDv7(), eventType: event, payload, isTest: true,
    status: "pending", attempts: 1, nextAttemptAt: null, leaseUntil: now + leaseMs(deps), createdAt: now, updatedAt: now,
  });
  const o = await attemptDelivery(deps, {
    rowid, id: deliveryId, workspaceId, webhookId: id, eventType: event, payload, isTest: true, status: "pending", attempts: 1, url: w.url, secretEnc: w.secretEnc,
  });
  return { delivered: o.ok, responseStatus: o.responseStatus ?? 0, deliveryId };
}

/** Re-sends one delivery now: same delivery id, next attempt number. 409 while an attempt is in flight. */
export async function retryDelivery(deps: AppDeps, workspaceId: string, webhookId: string, deliveryId: string) {
  await mustGet(deps, workspaceId, webhookId);
  const existing = await repo.getDelivery(deps.db, workspaceId, webhookId, deliveryId);
  if (!existing) throw errors.notFound("Delivery");
  if (!existing.payload) throw errors.conflict("This delivery has no payload to send (it exceeded the payload cap)");
  const d = await deps.deliveries.claimOne(workspaceId, webhookId, deliveryId, deps.clock.now().getTime(), leaseMs(deps));
  if (!d) throw errors.conflict("An attempt of this delivery is in progress");
  const o = await attemptDelivery(deps, d, { manual: true });
  return { id: d.id, status: o.status, attempts: d.attempts, responseStatus: o.responseStatus ?? 0, delivered: o.ok, error: o.error };
}
