import type { WAMessage } from "baileys";
import type { OutboundMessage } from "../driver.ts";

// Outbound reactions, locations, contact cards and quoted replies in baileys' message shapes.

const jidOf = (to: string) => (to.endsWith("@lid") ? to : `${to}@s.whatsapp.net`);

/** A vCard 3.0 of a contact card; `waid` lets the recipient's app offer a chat with the number. */
export function vcardOf(c: { name: string; phones: string[] }): string {
  const escape = (s: string) => s.replace(/\\/g, "\\\\").replace(/[,;]/g, (m) => `\\${m}`).replace(/\r?\n/g, "\\n");
  const tel = c.phones.map((p) => `TEL;type=CELL;type=VOICE;waid=${p}:+${p}`);
  return ["BEGIN:VCARD", "VERSION:3.0", `FN:${escape(c.name)}`, ...tel, "END:VCARD"].join("\n");
}

/** The `sendMessage` content of a reaction, location or contact card; undefined for the other types. */
export function richContent(m: OutboundMessage): Record<string, unknown> | undefined {
  if (m.type === "reaction" && m.reaction) {
    return { react: { text: m.reaction.emoji, key: { remoteJid: jidOf(m.to), id: m.reaction.networkMessageId, fromMe: m.reaction.fromMe } } };
  }
  if (m.type === "location" && m.location) {
    const l = m.location;
    return { location: { degreesLatitude: l.latitude, degreesLongitude: l.longitude, ...(l.name ? { name: l.name } : {}), ...(l.address ? { address: l.address } : {}) } };
  }
  if (m.type === "contact" && m.contacts?.length) {
    const cards = m.contacts;
    return { contacts: { displayName: cards.length === 1 ? cards[0]!.name : `${cards.length} contacts`, contacts: cards.map((c) => ({ displayName: c.name, vcard: vcardOf(c) })) } };
  }
  return undefined;
}

/** The `quoted` option of `sendMessage`: the quoted message as baileys wants it (its key and text). */
export function quotedOption(m: OutboundMessage): { quoted?: WAMessage } {
  if (!m.quoted) return {};
  return { quoted: { key: { remoteJid: jidOf(m.to), id: m.quoted.networkMessageId, fromMe: m.quoted.fromMe }, message: { conversation: m.quoted.text } } };
}
