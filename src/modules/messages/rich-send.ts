import { z } from "zod";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { phoneField } from "../../http/phone.ts";
import type { OutboundMessage } from "../../network/driver.ts";
import { findMessage } from "./repo.ts";
import { parsePayload } from "./rich-types.ts";

// Replies, reactions, locations and contact cards on a send (docs/messages.md#replies-reactions-locations-and-contact-cards).

/** The send body's fields of the richer sends (merged into the send schema). */
export const richSendFields = () => ({
  /** a message of the same conversation this one quotes */
  replyTo: z.uuid().optional(),
  reaction: z.object({ messageId: z.uuid(), emoji: z.string().max(32) }).strict().optional(),
  location: z
    .object({
      latitude: z.number().min(-90).max(90),
      longitude: z.number().min(-180).max(180),
      name: z.string().min(1).max(256).optional(),
      address: z.string().min(1).max(1024).optional(),
    })
    .strict()
    .optional(),
  contact: z.object({ name: z.string().trim().min(1).max(256), phones: z.array(phoneField).min(1).max(10) }).strict().optional(),
});

const RICH = ["reaction", "location", "contact"] as const;
type RichType = (typeof RICH)[number];
export const isRichType = (t: string): t is RichType => (RICH as readonly string[]).includes(t);

type RichInput = {
  type: string;
  body?: string;
  replyTo?: string;
  reaction?: { messageId: string; emoji: string };
  location?: { latitude: number; longitude: number; name?: string; address?: string };
  contact?: { name: string; phones: string[] };
};

/** Checks of the richer fields that depend on the type: each rich type needs its object, and only it. */
export function refineRich(v: RichInput, ctx: z.RefinementCtx): void {
  for (const k of RICH) {
    if (v[k] !== undefined && v.type !== k) ctx.addIssue({ code: "custom", path: [k], message: `is only for ${k} messages` });
  }
  if (!isRichType(v.type)) return;
  if (v[v.type] === undefined) ctx.addIssue({ code: "custom", path: [v.type], message: `is required for ${v.type} messages` });
  if (v.body !== undefined) ctx.addIssue({ code: "custom", path: ["body"], message: `is not used for ${v.type} messages` });
  if (v.type === "reaction" && v.replyTo !== undefined) ctx.addIssue({ code: "custom", path: ["replyTo"], message: "is not used for reactions (reaction.messageId names the message)" });
}

/** What a richer send stores: the text rendering, the structured content and the quoted message. */
export interface RichStored {
  body: string | null;
  payload: string | null;
  replyToId: string | null;
}

/**
 * A message of the same conversation (the send's session and recipient), or 404 / 400 naming
 * the field: a message of another workspace does not exist for the caller.
 */
async function sameConversation(deps: Pick<AppDeps, "db">, ws: string, id: string, field: string, sessionId: string, to: string) {
  const m = await findMessage(deps.db, ws, id);
  if (!m) throw errors.notFound("Message");
  if (m.sessionId !== sessionId || m.phone !== to) throw errors.validation({ [field]: "is a message of another conversation (the send's session and recipient)" });
  if (m.type === "reaction") throw errors.validation({ [field]: "is a reaction, which cannot be replied or reacted to" });
  return m;
}

/** Resolves the richer parts of a send (before its transaction); null for a plain send. */
export async function resolveRich(deps: Pick<AppDeps, "db">, ws: string, input: RichInput & { session_id: string; to: string }): Promise<RichStored | null> {
  if (!isRichType(input.type) && input.replyTo === undefined) return null;
  const replyTo = input.replyTo ? (await sameConversation(deps, ws, input.replyTo, "replyTo", input.session_id, input.to)).id : null;
  if (input.type === "reaction" && input.reaction) {
    const { messageId, emoji } = input.reaction;
    await sameConversation(deps, ws, messageId, "reaction.messageId", input.session_id, input.to);
    return { body: emoji, payload: JSON.stringify({ messageId, emoji, removed: emoji === "" }), replyToId: null };
  }
  if (input.type === "location" && input.location) {
    const l = { name: null, address: null, ...input.location };
    const label = [l.name, l.address].filter(Boolean).join(", ");
    return { body: `Location: ${l.latitude}, ${l.longitude}${label ? ` (${label})` : ""}`, payload: JSON.stringify(l), replyToId: replyTo };
  }
  if (input.type === "contact" && input.contact) {
    const c = { name: input.contact.name, phones: input.contact.phones };
    return { body: `Contact: ${[c.name, ...c.phones.map((p) => `+${p}`)].join(" ")}`, payload: JSON.stringify({ contacts: [c] }), replyToId: replyTo };
  }
  return { body: input.body ?? null, payload: null, replyToId: replyTo };
}

/** A message this one refers to, as the network knows it: its id there, and whether we sent it. */
async function networkRef(deps: Pick<AppDeps, "db">, ws: string, id: string) {
  const m = await findMessage(deps.db, ws, id);
  if (!m?.networkMessageId) return null;
  return { networkMessageId: m.networkMessageId, fromMe: m.direction === "outbound", text: m.body ?? "" };
}

/**
 * Fills the richer parts of an outbound message at send time: the quoted message and the
 * reacted-to message are looked up then (they may have left after this one was accepted).
 * Returns a reason when the message cannot go (the reacted-to message never reached the network).
 */
export async function richOutbound(deps: Pick<AppDeps, "db">, row: { workspaceId: string; type: string; payload: string | null; replyToId: string | null }, out: OutboundMessage): Promise<string | null> {
  const payload = parsePayload(row.payload);
  if (row.replyToId) {
    const quoted = await networkRef(deps, row.workspaceId, row.replyToId);
    if (quoted) out.quoted = quoted;
  }
  if (row.type === "reaction" && payload) {
    const target = await networkRef(deps, row.workspaceId, String(payload.messageId));
    if (!target) return "the message reacted to is not on the network";
    out.reaction = { networkMessageId: target.networkMessageId, fromMe: target.fromMe, emoji: String(payload.emoji ?? "") };
  } else if (row.type === "location" && payload) {
    out.location = payload as unknown as NonNullable<OutboundMessage["location"]>;
  } else if (row.type === "contact" && payload) {
    out.contacts = (payload.contacts as { name: string; phones: string[] }[]) ?? [];
  }
  return null;
}
