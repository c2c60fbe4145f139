import type { AppDeps } from "../../deps.ts";
import { mediaUrl } from "../media/service.ts";
import type { MessageWithMedia } from "./repo.ts";
import { parsePayload } from "./rich-types.ts";

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** API shape of a message (both directions). */
export function messageView(config: AppDeps["config"], m: MessageWithMedia, audience: "external" | "dashboard" = "dashboard") {
  const outbound = m.direction === "outbound";
  return {
    id: m.id,
    sessionId: m.sessionId,
    conversationId: m.conversationId,
    direction: m.direction,
    from: outbound ? m.sessionPhone : m.phone,
    to: outbound ? m.phone : m.sessionPhone,
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
    error: m.status === "failed" && m.errorCode ? { code: m.errorCode, message: m.errorMessage ?? "" } : null,
    createdAt: iso(m.createdAt),
    sentAt: iso(m.sentAt),
    deliveredAt: iso(m.deliveredAt),
    readAt: iso(m.readAt),
    failedAt: iso(m.failedAt),
  };
}
export type MessageView = ReturnType<typeof messageView>;
