import type { AppDeps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import type { InboundMessage } from "../../network/driver.ts";
import { fetchMediaUrl } from "../media/fetch.ts";
import { prepareMediaFile } from "../media/from-file.ts";
import { isMediaKind } from "./rich-types.ts";
import { createInboundContactInGroup, touchKnownInboundContact, upsertInboundContact, type InboundContact } from "../contacts/service.ts";
import { touchInboundConversation, touchKnownInboundConversation, type ConversationRow } from "../inbox/repo.ts";
import { upsertGroup } from "../groups/repo.ts";
import { publishConversationTouched } from "../inbox/service.ts";
import { commitMedia, discardMedia, mediaUrl, prepareMedia, type PreparedMedia } from "../media/service.ts";
import { publishReceived } from "./events.ts";
import { instruments } from "../metrics/counters.ts";
import { findByNetworkId, inboundCopy, insertMessage, replaceInboundContent, sessionOwner } from "./repo.ts";
import { InboundStep, type InboundBatcher } from "./inbound-batch.ts";
import { groupDefer, groupOnce } from "../../db/group-memo.ts";
import { contactKey, conversationKey, inboundGroupState, storedKey, type Prefetched } from "./inbound-prefetch.ts";
import { tellInboundStored } from "./stored-signal.ts";

/**
 * How the network's handler stores a message: in the group commit of `batch` (else in a
 * transaction of its own), calling `queued` once the message has its place in the group's
 * order, so the session's next message may be handled (and join the same group) while this
 * one is committed.
 */
export interface InboundVia {
  batch?: InboundBatcher;
  queued?: () => void;
}

/**
 * Stores an inbound message: its media file, the contact (phone, push name), the
 * conversation, the message row and message_received, all in one transaction. A message the
 * network delivers twice (same network id) is stored once. The network has already been told
 * the message arrived, so media never costs the message: a file that cannot be written, or a
 * media row that cannot be inserted, leaves the message stored without media (mediaUrl null).
 */
export async function receiveInbound(deps: AppDeps, sessionId: string, msg: InboundMessage, via: InboundVia = {}): Promise<void> {
  if (via.batch && !carriesMedia(msg)) return receiveText(deps, sessionId, msg, via.batch, via.queued);
  const owner = await sessionOwner(deps.db, sessionId);
  if (!owner) {
    deps.log.warn("inbound message for an unknown session", { sessionId });
    return;
  }
  const ws = owner.workspaceId;
  if (msg.group && !owner.groups) {
    // the session's `groups` setting is off: group chats are not kept (nor a file the driver downloaded)
    if (msg.media && "file" in msg.media) await Bun.file(msg.media.file).delete().catch(() => {});
    return;
  }
  // a repeat is refused in the transaction below; looking first only saves a media download
  if (carriesMedia(msg) && isStored(await findByNetworkId(deps.db, ws, sessionId, msg.networkMessageId, "inbound"))) return;
  const prepared = await inboundMedia(deps, ws, sessionId, msg);
  try {
    await storeInbound(deps, owner, sessionId, msg, prepared, via);
    return;
  } catch (err) {
    if (prepared) await discardMedia(deps, prepared);
    if (err instanceof Duplicate) return;
    if (!prepared) throw err;
    deps.log.warn("inbound media not stored; keeping the message without it", { sessionId, networkMessageId: msg.networkMessageId, err });
  }
  try {
    await storeInbound(deps, owner, sessionId, msg, null);
  } catch (err) {
    if (!(err instanceof Duplicate)) throw err;
  }
}

/**
 * A message without media, in a group commit: nothing to do before the transaction, so it takes
 * its place in the group at once (and the session's next message may follow it into the same
 * group). The session is looked up in the group, once per group.
 */
async function receiveText(deps: AppDeps, sessionId: string, msg: InboundMessage, batch: InboundBatcher, queued?: () => void): Promise<void> {
  // no inbound message changes a session: one read serves the group
  const ownerOf = (id: string) => groupOnce(`messages.owner\u0000${id}`, () => sessionOwner(deps.db, id));
  const wants = batch.wants;
  const want = wants?.want(sessionId, msg.networkMessageId, msg.group ? null : msg.from, msg.group?.id ?? msg.from);
  const stored = batch.run(
    async (step) => {
      const pre = want && (await wants!.take(deps.db, want, ownerOf));
      const owner = await ownerOf(sessionId);
      if (!owner) {
        deps.log.warn("inbound message for an unknown session", { sessionId });
        return;
      }
      // the session's `groups` setting is off: group chats are not kept
      if (msg.group && !owner.groups) return;
      await storeBody(deps, owner, sessionId, msg, null, step, pre);
    },
    { savepoint: false },
  );
  queued?.();
  try {
    await stored;
  } catch (err) {
    if (!(err instanceof Duplicate)) throw err;
  }
}

/**
 * One transaction (or one step of a group's): media row, contact, conversation, message row and
 * message_received (once, with the row's final state). A message with media has a savepoint of
 * its own in a group (its media row may fail after other writes) and keeps the session's next
 * message waiting until it is stored; a text refuses a repeat before it writes.
 */
async function storeInbound(
  deps: AppDeps,
  owner: Owner,
  sessionId: string,
  msg: InboundMessage,
  prepared: PreparedMedia | null,
  via: InboundVia = {},
): Promise<void> {
  const body = (step: InboundStep) => storeBody(deps, owner, sessionId, msg, prepared, step);
  if (!via.batch) return deps.db.tx(() => body(new InboundStep()));
  const stored = via.batch.run(body, { savepoint: !!prepared });
  if (!prepared) via.queued?.();
  await stored;
}

async function storeBody(
  deps: AppDeps,
  owner: Owner,
  sessionId: string,
  msg: InboundMessage,
  prepared: PreparedMedia | null,
  step: InboundStep,
  pre?: Prefetched,
): Promise<void> {
  const ws = owner.workspaceId;
  // in a group: what its earlier steps stored, else what the group read at its start (`pre`), else a read of its own
  const group = inboundGroupState();
  const key = storedKey(ws, sessionId, msg.networkMessageId);
  const inGroup = group?.stored.get(key);
  const copy = inGroup !== undefined ? { errorCode: inGroup } : pre ? pre.copy : await inboundCopy(deps.db, ws, sessionId, msg.networkMessageId);
  if (copy && (isStored(copy) || msg.undecryptable)) throw new Duplicate();
  // a placeholder: its row is replaced below
  const existing = copy ? await findByNetworkId(deps.db, ws, sessionId, msg.networkMessageId, "inbound") : undefined;
  step.writing();
  const at = deps.clock.now().getTime();
  const media = prepared ? await commitMedia(deps, prepared) : null;
  const pushName = msg.pushName?.trim() || null;
  const received = (row: Parameters<typeof publishReceived>[1]) =>
    publishReceived(deps, row, {
      // events reach webhook receivers (API keys) first; dashboards use GET /api/v1/media/{mediaId}
      mediaUrl: media ? mediaUrl(deps.config, media.id, "external") : null,
      mediaId: media?.id ?? null,
      mimeType: media?.mimeType ?? null,
      filename: media?.filename ?? null,
      pushName,
      timestamp: msg.timestamp,
      payload: msg.payload ?? null,
    });
  if (existing) {
    // the copy the network sent again decrypted: it takes the placeholder's place in the thread, and is announced now
    const content = { type: msg.type, body: msg.text ?? null, payload: msg.payload ? JSON.stringify(msg.payload) : null, mediaId: media?.id ?? null };
    await replaceInboundContent(deps.db, ws, existing.id, { ...content, at });
    group?.stored.set(key, null);
    await received({ ...existing, ...content });
    deps.db.afterCommit(() => tellInboundStored(deps.bus, ws, sessionId, msg.networkMessageId, existing.id));
    return;
  }
  // a group's members are not made contacts (they wrote to the group, not to the business): the conversation is the group's
  if (msg.group) await upsertGroup(deps.db, ws, sessionId, msg.group, at);
  const contact = msg.group ? null : await inboundContact(deps, ws, msg.from, pushName, at, pre);
  const address = msg.group?.id ?? msg.from;
  const id = Bun.randomUUIDv7();
  const conversation = await inboundConversation(deps, ws, { sessionId, phone: address, contactId: contact?.id ?? null, messageId: id, at }, pre);
  const conversationId = conversation.id;
  const row = {
    id,
    workspaceId: ws,
    sessionId,
    conversationId,
    direction: "inbound" as const,
    phone: address,
    participant: msg.group ? msg.from : null,
    participantName: msg.group ? pushName : null,
    sessionPhone: owner.phoneNumber,
    type: msg.type,
    body: msg.text ?? null,
    payload: msg.payload ? JSON.stringify(msg.payload) : null,
    mediaId: media?.id ?? null,
    status: "received" as const,
    networkMessageId: msg.networkMessageId,
    ...(msg.undecryptable ? { errorCode: UNDECRYPTABLE, errorMessage: "the message could not be decrypted on this device; the network was asked to send it again" } : {}),
    createdAt: at,
    updatedAt: at,
  };
  // a text's row goes out without waiting for its answer (the group waits for it before its commit)
  if (pre) await groupDefer(insertMessage(deps.db, ws, row));
  else await insertMessage(deps.db, ws, row);
  group?.stored.set(key, row.errorCode ?? null);
  // the unread count went up, and a closed or snoozed conversation is open again
  await publishConversationTouched(deps, ws, conversation, {
    session: { name: owner.name, phoneNumber: owner.phoneNumber },
    contact,
    message: { id, direction: row.direction, type: row.type, body: row.body, status: row.status, createdAt: at },
  });
  if (msg.undecryptable) {
    // kept in the thread as a placeholder; announced (message_received) once its content arrives
    deps.db.afterCommit(() => {
      deps.log.warn("inbound message could not be decrypted; placeholder stored", { sessionId, messageId: id, networkMessageId: msg.networkMessageId });
      instruments().undecryptable.inc();
    });
    return;
  }
  await received(row);
  deps.db.afterCommit(() => tellInboundStored(deps.bus, ws, sessionId, msg.networkMessageId, id));
}

/**
 * The contact of a message's sender, recorded: from what its group read (or an earlier step of
 * the group recorded), touched by a write sent without waiting for it; else found or created
 * (`upsertInboundContact`). After a step that recorded its contact on its own (a message with
 * media), the group's later steps do so too.
 */
async function inboundContact(deps: AppDeps, ws: string, phone: string, pushName: string | null, at: number, pre?: Prefetched): Promise<InboundContact | null> {
  const group = inboundGroupState();
  if (!group || !pre || group.direct) {
    if (group) group.direct = true;
    return upsertInboundContact(deps, ws, phone, pushName, at);
  }
  const key = contactKey(ws, phone);
  const known = group.contacts.get(key) ?? pre.contact;
  const contact = known ? await touchKnownInboundContact(deps, ws, known, pushName, at, groupDefer) : await createInboundContactInGroup(deps, ws, phone, pushName, at);
  if (contact) group.contacts.set(key, contact);
  return contact;
}

/**
 * The message's conversation, touched (unread count up, open again): from what its group read
 * (or an earlier step of the group left), computed here and upserted by a write sent without
 * waiting for it; else upserted and read back. As for the contact, a step that touched its
 * conversation on its own makes the group's later steps do so too.
 */
async function inboundConversation(
  deps: AppDeps,
  ws: string,
  c: { sessionId: string; phone: string; contactId: string | null; messageId: string; at: number },
  pre?: Prefetched,
): Promise<ConversationRow> {
  const group = inboundGroupState();
  if (!group || !pre || group.direct) {
    if (group) group.direct = true;
    return touchInboundConversation(deps.db, ws, c);
  }
  const key = conversationKey(ws, c.sessionId, c.phone);
  const row = await touchKnownInboundConversation(deps.db, ws, group.conversations.get(key) ?? pre.conversation, c, groupDefer);
  group.conversations.set(key, row);
  return row;
}

/** The session a message arrived on, as `sessionOwner` reads it. */
type Owner = { workspaceId: string; name: string; phoneNumber: string | null };

/** The error code an inbound placeholder carries until the message's content arrives. */
export const UNDECRYPTABLE = "undecryptable";

/** Whether a stored inbound message is final (not a placeholder waiting for its content). */
function isStored(m: { errorCode: string | null } | undefined): boolean {
  return !!m && m.errorCode !== UNDECRYPTABLE;
}

class Duplicate extends Error {}

/** Whether storing the message means fetching or writing a media file first. */
function carriesMedia(msg: InboundMessage): boolean {
  return !!msg.media || (!!msg.mediaUrl && msg.type !== "text");
}

/**
 * Writes the media of an inbound message: the bytes the driver downloaded, or the file behind
 * the URL the network gave (the sim's `mediaUrl`), fetched with the webhook URL guard. A
 * download or a write that fails (disk full, unwritable media folder) leaves the message
 * without media rather than losing it.
 */
async function inboundMedia(deps: AppDeps, ws: string, sessionId: string, msg: InboundMessage): Promise<PreparedMedia | null> {
  try {
    // a driver that streamed the media to a file (baileys) hands the file over
    if (msg.media && "file" in msg.media) return await prepareMediaFile(deps, ws, { ...msg.media, declaredMime: msg.media.mimeType, source: "inbound" });
    if (msg.media) {
      return await prepareMedia(deps, ws, { bytes: msg.media.data, declaredMime: msg.media.mimeType, filename: msg.media.filename, source: "inbound" });
    }
    if (!msg.mediaUrl || !isMediaKind(msg.type)) return null;
    const f = await fetchMediaUrl(deps, msg.mediaUrl, msg.type);
    return await prepareMedia(deps, ws, { bytes: f.bytes, declaredMime: f.declaredMime, filename: f.filename, source: "inbound" });
  } catch (err) {
    const reason = err instanceof AppError ? (err.errors?.mediaUrl ?? err.message) : undefined;
    deps.log.warn("inbound media not stored; keeping the message without it", { sessionId, networkMessageId: msg.networkMessageId, reason, err });
    return null;
  }
}
