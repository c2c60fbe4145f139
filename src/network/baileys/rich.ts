import type { proto } from "baileys";
import type { InboundType } from "../driver.ts";

// Reactions, locations and contact cards: stored with a text rendering (the message body, what
// an inbox or a webhook receiver that knows only text shows) and a structured payload.

export interface RichContent {
  type: Extract<InboundType, "reaction" | "location" | "contact">;
  text: string;
  payload: Record<string, unknown>;
}

/** The phone numbers of a vCard: the network's `waid` when present, else the TEL digits. */
export function vcardPhones(vcard: string | null | undefined): string[] {
  const phones: string[] = [];
  for (const line of (vcard ?? "").split(/\r?\n/)) {
    if (!/^(item\d+\.)?TEL/i.test(line)) continue;
    const waid = /waid=(\d+)/i.exec(line)?.[1];
    const digits = waid ?? line.slice(line.lastIndexOf(":") + 1).replace(/\D/g, "");
    if (digits && !phones.includes(digits)) phones.push(digits);
  }
  return phones;
}

function contactOf(c: proto.Message.IContactMessage | null | undefined) {
  const phones = vcardPhones(c?.vcard);
  return { name: c?.displayName ?? null, phones, vcard: c?.vcard ?? null };
}

const renderContact = (c: { name: string | null; phones: string[] }) => [c.name ?? "(no name)", ...c.phones.map((p) => `+${p}`)].join(" ");

/** A reaction, location or contact card, or null for other content. */
export function translateRich(content: proto.IMessage): RichContent | null {
  if (content.reactionMessage) {
    const r = content.reactionMessage;
    const emoji = r.text ?? "";
    // an empty reaction takes an earlier one back
    return {
      type: "reaction",
      text: emoji,
      payload: { emoji, removed: emoji === "", messageId: r.key?.id ?? null, fromMe: Boolean(r.key?.fromMe) },
    };
  }
  const loc = content.locationMessage ?? content.liveLocationMessage;
  if (loc) {
    const latitude = loc.degreesLatitude ?? 0;
    const longitude = loc.degreesLongitude ?? 0;
    const l = loc as proto.Message.ILocationMessage;
    const name = l.name ?? null;
    const address = l.address ?? null;
    const label = [name, address].filter(Boolean).join(", ");
    return {
      type: "location",
      text: `Location: ${latitude}, ${longitude}${label ? ` (${label})` : ""}`,
      payload: { latitude, longitude, name, address, url: l.url ?? null, live: Boolean(content.liveLocationMessage) },
    };
  }
  if (content.contactMessage) {
    const c = contactOf(content.contactMessage);
    return { type: "contact", text: `Contact: ${renderContact(c)}`, payload: { contacts: [c] } };
  }
  if (content.contactsArrayMessage) {
    const list = (content.contactsArrayMessage.contacts ?? []).map(contactOf);
    return { type: "contact", text: `Contacts: ${list.map(renderContact).join("; ")}`, payload: { contacts: list } };
  }
  return null;
}
