import type { AppDeps } from "../../deps.ts";
import type { MessageRow } from "./repo.ts";
import { isGroupAddress } from "../../network/group-address.ts";

// Payloads of spec part 6 and docs/messages.md. Publish inside db.tx, with the change.
type Bus = Pick<AppDeps, "bus">;
const iso = (t: number) => new Date(t).toISOString();
type Msg = Pick<MessageRow, "id" | "workspaceId" | "sessionId" | "phone"> & { automationId?: string | null; campaignId?: string | null };

/**
 * The campaign of the message an event is about, when the publisher knew it (a message row it
 * read): a hidden property of the event's data (a symbol, not enumerable), so no payload changes.
 * Read with `eventCampaign`.
 */
const CAMPAIGN = Symbol("campaign of the message");

/** `data` with the campaign of its message attached when `m` says it (its row was read). */
function withCampaign<T extends Record<string, unknown>>(data: T, m: Msg): T {
  if (m.campaignId !== undefined) Object.defineProperty(data, CAMPAIGN, { value: m.campaignId, enumerable: false });
  return data;
}

/**
 * The campaign id of the message a message event is about, null when the message is no
 * campaign's, undefined when the publisher did not say (then look it up).
 */
export function eventCampaign(data: Record<string, unknown>): string | null | undefined {
  return (data as Record<symbol, string | null | undefined>)[CAMPAIGN];
}
/** An auto-reply's events name its automation (docs/automations.md); other messages' events are unchanged. */
const origin = (m: Msg) => (m.automationId ? { automationId: m.automationId } : {});

/** A group chat's message names its group (docs/groups.md); other messages carry nothing more. */
const inGroup = (m: Msg) => (isGroupAddress(m.phone) ? { groupId: m.phone } : {});

/** message_sent: the network accepted an outbound message. */
export async function publishSent(deps: Bus, m: Msg): Promise<void> {
  await deps.bus.publish(m.workspaceId, "message_sent", withCampaign({ sessionId: m.sessionId, to: m.phone, messageId: m.id, ...origin(m), ...inGroup(m) }, m));
}

/** message_delivered: a delivery receipt arrived. */
export async function publishDelivered(deps: Bus, m: Msg, deliveredAt: number): Promise<void> {
  await deps.bus.publish(m.workspaceId, "message_delivered", withCampaign({ sessionId: m.sessionId, messageId: m.id, deliveredAt: iso(deliveredAt), ...inGroup(m) }, m));
}

/** message_read: a read receipt arrived. */
export async function publishRead(deps: Bus, m: Msg, readAt: number): Promise<void> {
  await deps.bus.publish(m.workspaceId, "message_read", withCampaign({ sessionId: m.sessionId, messageId: m.id, readAt: iso(readAt), ...inGroup(m) }, m));
}

/** message_failed (docs/messages.md): the message will not be sent. */
export async function publishFailed(deps: Bus, m: Msg, error: { code: string; message: string }): Promise<void> {
  await deps.bus.publish(m.workspaceId, "message_failed", withCampaign({ sessionId: m.sessionId, messageId: m.id, to: m.phone, error, ...origin(m), ...inGroup(m) }, m));
}

/**
 * message_received (docs/messages.md): both `text` and `content`, and `mediaUrl` (null for
 * text). A group's message: `from` and `participant` are the member who wrote, `groupId` the group.
 */
export async function publishReceived(
  deps: Bus,
  m: Msg & Pick<MessageRow, "type" | "body"> & { participant?: string | null },
  extra: { mediaUrl: string | null; mediaId: string | null; mimeType: string | null; filename: string | null; pushName: string | null; timestamp: Date; payload?: unknown },
): Promise<void> {
  const text = m.body ?? "";
  await deps.bus.publish(m.workspaceId, "message_received", {
    sessionId: m.sessionId,
    from: m.participant ?? m.phone,
    messageId: m.id,
    ...(isGroupAddress(m.phone) ? { groupId: m.phone, participant: m.participant ?? null } : {}),
    type: m.type,
    text,
    content: text,
    mediaUrl: extra.mediaUrl,
    mediaId: extra.mediaId,
    mimeType: extra.mimeType,
    filename: extra.filename,
    pushName: extra.pushName,
    timestamp: extra.timestamp.toISOString(),
    // reaction, location, contact only: the structured content (text holds its text rendering)
    ...(extra.payload ? { payload: extra.payload } : {}),
  });
}
