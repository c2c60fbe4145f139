import { and, eq, inArray } from "drizzle-orm";
import type { AppDeps } from "../../deps.ts";
import type { EchoMessage } from "../../network/driver.ts";
import { contactIdByPhone } from "../contacts/service.ts";
import { touchConversation } from "../inbox/repo.ts";
import { prepareMediaFile } from "../media/from-file.ts";
import { commitMedia, discardMedia, prepareMedia, type PreparedMedia } from "../media/service.ts";
import { publishFailed, publishSent } from "./events.ts";
import { findByNetworkId, insertMessage, sessionOwner } from "./repo.ts";
import { pauseSending, RESTRICTION_PAUSE_MS } from "./send-pause.ts";
import { messages } from "./table.ts";
import { isGroupAddress } from "../../network/group-address.ts";

type Deps = Pick<AppDeps, "db" | "bus" | "clock" | "log" | "config">;

export interface Rejection {
  sessionId: string;
  networkMessageId: string;
  code: string;
  restricted: boolean;
  detail: string;
}

/**
 * The network refused a message it had accepted (an ack with an error code: 463, 479, ...):
 * the message is failed with `rejected_<code>` and message_failed is published. A restriction
 * (463) also pauses the session's queue for RESTRICTION_PAUSE_MS. Answers false when no sent
 * message has that id (yet: the send may still be committing).
 */
export async function applyRejection(deps: Deps, r: Rejection): Promise<boolean> {
  const owner = await sessionOwner(deps.db, r.sessionId);
  if (!owner) return true;
  const ws = owner.workspaceId;
  const now = deps.clock.now().getTime();
  if (r.restricted) await pauseSending(deps, ws, r.sessionId, now + RESTRICTION_PAUSE_MS, `restricted_${r.code}`);
  return deps.db.tx(async () => {
    const m = await findByNetworkId(deps.db, ws, r.sessionId, r.networkMessageId, "outbound");
    if (!m) return false;
    const error = { code: `rejected_${r.code}`, message: r.detail };
    const done = await deps.db
      .update(messages)
      .set({ status: "failed", errorCode: error.code, errorMessage: error.message, failedAt: now, updatedAt: now })
      .where(and(eq(messages.workspaceId, ws), eq(messages.id, m.id), inArray(messages.status, ["sent", "delivered"])))
      .returning({ id: messages.id })
      .all();
    if (done.length) await publishFailed(deps, m, error);
    return true;
  });
}

/**
 * A message the owner wrote from the phone (not through Parley): recorded as an outbound
 * message, already `sent`, with message_sent. Not counted in the monthly quota (Parley did
 * not send it). A repeat of the same network id is stored once.
 */
export async function recordEcho(deps: Deps, sessionId: string, echo: EchoMessage): Promise<void> {
  const owner = await sessionOwner(deps.db, sessionId);
  if (!owner) return;
  const ws = owner.workspaceId;
  const group = isGroupAddress(echo.to);
  // the session's `groups` setting is off: group chats are not kept
  if ((group && !owner.groups) || (await findByNetworkId(deps.db, ws, sessionId, echo.networkMessageId, "outbound"))) {
    if (echo.media && "file" in echo.media) await Bun.file(echo.media.file).delete().catch(() => {});
    return;
  }
  let prepared: PreparedMedia | null = null;
  try {
    if (echo.media && "file" in echo.media) prepared = await prepareMediaFile(deps, ws, { ...echo.media, declaredMime: echo.media.mimeType, source: "inbound" });
    else if (echo.media) prepared = await prepareMedia(deps, ws, { bytes: echo.media.data, declaredMime: echo.media.mimeType, filename: echo.media.filename, source: "inbound" });
  } catch (err) {
    deps.log.warn("media of a message sent from the phone not stored", { sessionId, networkMessageId: echo.networkMessageId, err });
  }
  try {
    await deps.db.tx(async () => {
      if (await findByNetworkId(deps.db, ws, sessionId, echo.networkMessageId, "outbound")) throw new Repeat();
      const at = deps.clock.now().getTime();
      const sentAt = echo.timestamp.getTime();
      const media = prepared ? await commitMedia(deps, prepared) : null;
      const id = Bun.randomUUIDv7();
      const contactId = group ? null : await contactIdByPhone(deps, ws, echo.to);
      const conversationId = await touchConversation(deps.db, ws, { sessionId, phone: echo.to, contactId, messageId: id, at, inbound: false });
      const row = {
        id,
        sessionId,
        conversationId,
        direction: "outbound" as const,
        phone: echo.to,
        sessionPhone: owner.phoneNumber,
        type: echo.type,
        body: echo.text ?? null,
        payload: echo.payload ? JSON.stringify(echo.payload) : null,
        mediaId: media?.id ?? null,
        status: "sent" as const,
        networkMessageId: echo.networkMessageId,
        createdBy: "phone",
        createdAt: at,
        sentAt,
        updatedAt: at,
      };
      await insertMessage(deps.db, ws, row);
      await publishSent(deps, { ...row, workspaceId: ws });
    });
  } catch (err) {
    if (prepared) await discardMedia(deps, prepared);
    if (!(err instanceof Repeat)) throw err;
  }
}

class Repeat extends Error {}

/**
 * The wiring's handler of a rejection: applied at once, and once more a little later when the
 * message was not found (the ack can overtake the commit of the send).
 */
export function onRejected(deps: Deps, r: Rejection, retryMs = 2_000): void {
  const run = async (again: boolean) => {
    try {
      if (!(await applyRejection(deps, r)) && again) setTimeout(() => void run(false), retryMs).unref?.();
    } catch (err) {
      deps.log.error("rejection not applied", { sessionId: r.sessionId, networkMessageId: r.networkMessageId, err });
    }
  };
  void run(true);
}
