import type { AppDeps } from "../../deps.ts";
import { mediaUrl } from "../media/service.ts";
import type { MessageWithMedia } from "./repo.ts";
import { parsePayload } from "./rich-types.ts";
import { isGroupAddress } from "../../network/group-address.ts";

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** API shape of a message (both directions). */
export function messageView(config: AppDeps["config"], m: MessageWithMedia, audience: "external" | "dashboard" = "dashboard") {
  const outbound = m.direction === "outbound";
  const group = isGroupAddress(m.phone);
  return {
    id: m.id,
    sessionId: m.sessionId,
    conversationId: m.conversationId,
    direction: m.direction,
    // a group's inbound message is from the member who wrote it, to the group
    from: outbound ? m.sessionPhone : (m.participant ?? m.phone),
    to: outbound || group ? m.phone : m.sessionPhone,
    groupId: group ? m.phone : null,
    /** a group's inbound message: the member who wrote it and the name they go by */
    participant: m.participant,
    participantName: m.participantName,
    type: m.type,
    body: m.body,
    payload: parsePayload(m.payload),
    replyTo: m.replyToId,
    mediaId: m.mediaId,
    mediaUrl: m.mediaId ? mediaUrl(config, m.mediaId, audience) : null,
    mimeType: m.mimeType,
    filename: m.filename,
    status: m.status,
    networkMessageId: m.networkMessageId,
    attempts: m.attempts,
    campaignId: m.campaignId,
    automationId: m.automationId,
    error: m.status === "failed" && m.errorCode ? { code: m.errorCode, message: m.errorMessage ?? "" } : null,
    createdAt: iso(m.createdAt),
    sendAt: iso(m.sendAt ?? null),
    sentAt: iso(m.sentAt),
    deliveredAt: iso(m.deliveredAt),
    readAt: iso(m.readAt),
    failedAt: iso(m.failedAt),
  };
}
export type MessageView = ReturnType<typeof messageView>;
