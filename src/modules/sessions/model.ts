import { z } from "zod";
import type { SessionRow } from "./repo.ts";
import { phoneField } from "../../http/phone.ts";
import { lazySchema } from "../../http/lazy-schema.ts";

/** Path parameter of every session route. */
export const sessionIdParams = lazySchema(() => z.object({ id: z.uuid("must be a session id (UUID)") }));

/** POST /api/v1/chatapp (docs/sessions.md: name 1-64, unique in the workspace). */
export const createSessionBody = lazySchema(() =>
  z.object({
    name: z.string().trim().min(1, "must not be empty").max(64, "must be at most 64 characters"),
  }),
);

/** PATCH /api/v1/chatapp/{id}: the session's settings (docs/groups.md). */
export const patchSessionBody = lazySchema(() =>
  z.object({
    settings: z.object({ groups: z.boolean({ error: "must be true or false" }).optional() }, { error: "must be an object of settings" }).strict(),
  }),
);

/** Digits with the country code, no plus, 8 to 15 digits. */
export const phoneNumber = phoneField;

/** POST /api/v1/chatapp/{id}/pairing-code (docs/sessions.md). */
export const pairingCodeBody = lazySchema(() => z.object({ phoneNumber }));

/** The session as the API shows it (docs/sessions.md: the session's fields, timestamps and the last disconnect reason). */
export interface SessionView {
  id: string;
  name: string;
  status: SessionRow["status"];
  phoneNumber: string | null;
  connected: boolean;
  /**
   * whether the link to the network is open now on the node holding the session; a connected
   * session reads false while a restart, a node's takeover or a reconnect brings it back
   */
  live: boolean;
  lastDisconnectReason: string | null;
  connectedAt: string | null;
  /** groups: the session's group messages are stored (off: dropped) */
  settings: { groups: boolean };
  createdAt: string;
  updatedAt: string;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Maps a row to its API shape; credentials never leave the server. */
export function sessionView(row: SessionRow, live: boolean): SessionView {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    phoneNumber: row.phoneNumber,
    connected: row.status === "connected",
    live: live && row.status === "connected",
    lastDisconnectReason: row.lastDisconnectReason,
    connectedAt: iso(row.connectedAt),
    settings: { groups: row.groups },
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}

/** The QR of a session waiting to be linked (docs/sessions.md, docs/api.md). */
export interface LiveQr {
  qr: string;
  qrDataUrl: string;
  expiresAt: string;
}
