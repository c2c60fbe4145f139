// The link between a node and the sim network process, in JSON text frames over a WebSocket
// (docs/sim-network.md). One socket per session: `/link?session=<id>&node=<node id>`.
import { NetworkError, type DriverEvent, type OutboundMessage } from "../driver.ts";

/** Calls a node makes on its link, by name (a new operation is one more name here and in the server's table). */
export type LinkOp = "send" | "pairingCode" | "checkNumbers" | "listGroups";

/** node -> sim network */
export type NodeFrame =
  /** first frame: start linking (a QR) or, with stored credentials, reconnect */
  | { t: "open"; credentials: string | null }
  | { t: "call"; id: number; op: LinkOp; args: unknown[] }
  /** the node ends the link (then closes the socket); `logout` also unlinks the device */
  | { t: "close"; logout: boolean };

export interface WireError {
  message: string;
  transient: boolean;
  code: string;
}

/** sim network -> node */
export type SimFrame =
  /** a driver event of the link's session; its dates are ISO strings on the wire */
  | { t: "event"; event: unknown }
  | { t: "reply"; id: number; result?: unknown; error?: WireError };

/** Close codes the sim network ends a link with (4440: another link took the number, as the real network's 440). */
export const CLOSE_REPLACED = 4440;
export const CLOSE_LOGOUT = 4401;

/** Why a link closed, as `sim-links.jsonl` records it. */
export type LinkCloseReason = "replaced" | "logout" | "gone" | "closed";

export function wireError(err: unknown): WireError {
  if (err instanceof NetworkError) return { message: err.message, transient: err.transient, code: err.code };
  return { message: err instanceof Error ? err.message : String(err), transient: false, code: "sim_error" };
}

export function fromWireError(e: WireError): NetworkError {
  return new NetworkError(e.message, e.transient, e.code);
}

/** An outbound message on the wire: media bytes as base64. */
export function encodeOutbound(m: OutboundMessage): unknown {
  if (!m.media) return m;
  return { ...m, media: { ...m.media, data: Buffer.from(m.media.data).toString("base64") } };
}

export function decodeOutbound(v: unknown): OutboundMessage {
  const m = v as OutboundMessage & { media?: { data: string | Uint8Array } };
  if (m.media && typeof m.media.data === "string") m.media = { ...m.media, data: new Uint8Array(Buffer.from(m.media.data, "base64")) };
  return m as OutboundMessage;
}

/** A driver event read off the wire: its dates made dates again. */
export function decodeEvent(v: unknown): DriverEvent {
  const e = v as DriverEvent & Record<string, any>;
  if (e.type === "qr") e.expiresAt = new Date(e.expiresAt);
  if (e.type === "receipt") e.at = new Date(e.at);
  if ((e.type === "inbound" || e.type === "outbound_echo") && e.message) e.message.timestamp = new Date(e.message.timestamp);
  return e;
}
