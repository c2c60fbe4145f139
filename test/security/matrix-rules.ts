// The rules of the permission matrix (test/security/permission-matrix.test.ts): for every route
// of the OpenAPI document, who may call it and how to build a valid request for it.
import { setPlanManually } from "../../src/modules/billing/subscription.ts";
import type { Role } from "../../src/modules/users/roles.ts";
import type { TestApp } from "../helpers/app.ts";
import type { TestWorkspace } from "../helpers/fixtures.ts";

export type Permission = "read" | "messaging" | "manage" | "team" | "billing";
/** "registration": carries a registration token (docs/authentication.md), covered in depth by test/modules/auth. */
export type AuthKind = "public" | "registration" | "jwt" | "apiKey" | "jwtOrApiKey";

/** The role table (docs/team-and-billing.md), written out again here on purpose (not imported from src/auth/permissions.ts). */
export const ROLE_TABLE: Record<Permission, Role[]> = {
  read: ["owner", "admin", "agent", "viewer"],
  messaging: ["owner", "admin", "agent"],
  manage: ["owner", "admin"],
  team: ["owner", "admin"],
  billing: ["owner"],
};
export const ROLES: Role[] = ["owner", "admin", "agent", "viewer"];

/** What a builder gets: the app and the workspace whose resources it must use (created fresh per call). */
export interface Ctx {
  t: TestApp;
  ws: TestWorkspace;
}

export interface Rule {
  /** default "jwt" */
  auth?: AuthKind;
  /** default by method: GET -> read; any other method must say */
  perm?: Permission;
  /** values of the path parameters: ids of resources of `ctx.ws` */
  params?: (c: Ctx) => Promise<Record<string, string>> | Record<string, string>;
  /** a valid body (ids in it from `ctx.ws`) */
  body?: (c: Ctx) => Promise<unknown> | unknown;
  /** the body carries ids of the workspace: another workspace's owner must get 404 */
  bodyIds?: boolean;
  /** statuses an allowed caller may get (default: anything but 401, 403 FORBIDDEN and 404) */
  ok?: number[];
  /** data to put in the workspace before a list is read by another workspace's owner */
  seed?: (c: Ctx) => Promise<void> | void;
}

let seq = 0;
const uniqueEmail = () => `matrix-${++seq}-${Bun.randomUUIDv7().slice(-8)}@example.com`;

// -- builders shared by rules --
const apiKeyId = async ({ t, ws }: Ctx) => ({ id: (await t.request("POST", "/api/api-keys", { token: ws.owner.token, body: { name: "fixture" } })).body.data.id });
const memberId = async ({ ws }: Ctx) => ({ id: (await ws.member("agent")).userId });
const invitationId = async ({ t, ws }: Ctx) => ({
  id: (await t.request("POST", "/api/team/invitations", { token: ws.owner.token, body: { email: uniqueEmail(), role: "agent" } })).body.data.id,
});
/** An invitation whose mail went out over a minute ago, so a resend passes the per-recipient limit. */
const resendableInvitationId = async (c: Ctx) => {
  const { id } = await invitationId(c);
  await c.t.deps.db.prepare("UPDATE invitation_mails SET created_at = created_at - 61000 WHERE email = (SELECT email FROM invitations WHERE id = ?)").run(id);
  return { id };
};

const sessionId = async ({ t, ws }: Ctx) => ({
  id: (await t.request("POST", "/api/v1/chatapp", { token: ws.owner.token, body: { name: `s-${++seq}` } })).body.data.id,
});

const HOOK_URL = "http://127.0.0.1:9/hook";
const connectedSession = async ({ t, ws }: Ctx) => {
  const now = t.clock.now().getTime();
  await t.deps.db
    .prepare("INSERT INTO chat_sessions (id, workspace_id, name, status, phone_number, connected_at, created_at, updated_at) VALUES (?, ?, ?, 'connected', '919800000000', ?, ?, ?)")
    .run(Bun.randomUUIDv7(), ws.id, `connected-${++seq}`, now, now, now);
};
const webhookId = async (c: Ctx) => {
  await connectedSession(c);
  const r = await c.t.request("POST", "/api/webhooks", { token: c.ws.owner.token, body: { name: "matrix", url: HOOK_URL, events: ["message_received"] } });
  return { id: r.body.data.id as string };
};
const deliveryIds = async (c: Ctx) => {
  const { id } = await webhookId(c);
  await c.t.deps.db.tx(() => c.t.deps.bus.publish(c.ws.id, "message_received", { sessionId: "s", from: "919800000001", messageId: "m", text: "hi", content: "hi", mediaUrl: null }));
  const row = (await c.t.deps.db.prepare("SELECT id FROM webhook_deliveries WHERE webhook_id = ?").get(id)) as { id: string };
  return { id, deliveryId: row.id };
};

const automationBody = { name: "matrix", trigger: { type: "keyword", keywords: ["price"] }, reply: { body: "prices" } };
const automationId = async ({ t, ws }: Ctx) => ({
  id: (await t.request("POST", "/api/v1/automations", { token: ws.owner.token, body: automationBody })).body.data.id as string,
});

const connectedSessionId = async ({ t, ws }: Ctx) => {
  const id = Bun.randomUUIDv7();
  const now = t.clock.now().getTime();
  await t.deps.db
    .prepare("INSERT INTO chat_sessions (id, workspace_id, name, status, phone_number, connected_at, created_at, updated_at) VALUES (?, ?, ?, 'connected', '919800000000', ?, ?, ?)")
    .run(id, ws.id, `live-${++seq}`, now, now, now);
  return id;
};
const sendBody = async (c: Ctx) => ({ session_id: await connectedSessionId(c), to: "919822222222", type: "text", body: "hello" });
const messageId = async (c: Ctx) => ({
  id: (await c.t.request("POST", "/api/v1/messages/send", { token: c.ws.owner.token, body: await sendBody(c) })).body.data.id as string,
});
/** A send scheduled an hour ahead (cancellable). */
const scheduledMessageId = async (c: Ctx) => ({
  id: (await c.t.request("POST", "/api/v1/messages/send", { token: c.ws.owner.token, body: { ...(await sendBody(c)), sendAt: new Date(c.t.clock.now().getTime() + 3_600_000).toISOString() } })).body.data.id as string,
});
const quickReplyId = async ({ t, ws }: Ctx) => ({
  id: (await t.request("POST", "/api/v1/quick-replies", { token: ws.owner.token, body: { shortcut: `qr${++seq}`, body: "Hello {{name|there}}" } })).body.data.id as string,
});
/** An inbound message through the messaging module's own handler: a contact and a conversation. */
const inbound = async (c: Ctx) => {
  const { receiveInbound } = await import("../../src/modules/messages/inbound.ts");
  const sessionId = await connectedSessionId(c);
  const from = `9198${String(++seq).padStart(8, "0")}`;
  await receiveInbound(c.t.deps, sessionId, { networkMessageId: `IN${seq}`, from, pushName: "Ravi", type: "text", text: "hi", timestamp: c.t.clock.now() });
  return (await c.t.deps.db.prepare("SELECT id, contact_id AS \"contactId\" FROM conversations WHERE workspace_id = ? AND phone = ?").get(c.ws.id, from)) as { id: string; contactId: string };
};
const pdf = () => {
  const form = new FormData();
  form.append("file", new File([new TextEncoder().encode("%PDF-1.4\n%matrix\n")], "matrix.pdf", { type: "application/pdf" }));
  return form;
};
const mediaId = async (c: Ctx) => ({ id: (await c.t.request("POST", "/api/v1/media", { token: c.ws.owner.token, body: pdf() })).body.data.id as string });

/** A draft campaign of the workspace (a connected session in the database; contact ids that match nobody). */
const campaignBody = async (c: Ctx) => ({
  name: `matrix-${++seq}`,
  sessionIds: [await connectedSessionId(c)],
  message: { type: "text", body: "Hi {{name|there}}" },
  audience: { contactIds: [Bun.randomUUIDv7()] },
});
const campaignId = async (c: Ctx, then?: "start" | "pause") => {
  const id = (await c.t.request("POST", "/api/v1/campaigns", { token: c.ws.owner.token, body: await campaignBody(c) })).body.data.id as string;
  if (then) await c.t.request("POST", `/api/v1/campaigns/${id}/start`, { token: c.ws.owner.token });
  if (then === "pause") await c.t.request("POST", `/api/v1/campaigns/${id}/pause`, { token: c.ws.owner.token });
  return { id };
};
const newPhone = () => `9197${String(++seq).padStart(8, "0")}`;
const contactId = async ({ t, ws }: Ctx) => ({
  id: (await t.request("POST", "/api/v1/contacts", { token: ws.owner.token, body: { phone: newPhone(), tags: ["matrix"] } })).body.data.id as string,
});
const csvUpload = () => {
  const form = new FormData();
  form.append("file", new File([`phone,name\n${newPhone()},Matrix\n`], "matrix.csv", { type: "text/csv" }));
  return form;
};
const importId = async ({ t, ws }: Ctx) => ({ id: (await t.request("POST", "/api/v1/contacts/import", { token: ws.owner.token, body: csvUpload() })).body.data.id as string });
const segmentId = async ({ t, ws }: Ctx) => ({
  id: (await t.request("POST", "/api/v1/segments", { token: ws.owner.token, body: { name: `matrix ${++seq}`, filter: { tagsAny: ["matrix"] } } })).body.data.id as string,
});

/** Keyed by "METHOD /openapi/path". */
export const RULES: Record<string, Rule> = {
  // public
  "GET /health": { auth: "public" },
  "GET /ready": { auth: "public" },
  "POST /api/team/invitations/accept": { auth: "public" },
  "POST /api/billing/webhooks/razorpay": { auth: "public" },
  "GET /api/auth/captcha": { auth: "public" },
  "POST /api/auth/register": { auth: "public" },
  "POST /api/auth/login": { auth: "public" },
  "POST /api/auth/login/send-otp": { auth: "public" },
  "POST /api/auth/login/verify-otp": { auth: "public" },
  "POST /api/auth/refresh": { auth: "public" },
  "POST /api/auth/logout": { auth: "public" },
  "POST /api/auth/forgot-password": { auth: "public" },
  "POST /api/auth/reset-password": { auth: "public" },
  // the setup link: its one-time token, not a credential (404 without it)
  "GET /api/setup": { auth: "public" },
  "POST /api/setup": { auth: "public" },

  // registration steps (docs/authentication.md): a registration token, never an access token or a key
  "POST /api/auth/mobile/send-otp": { auth: "registration" },
  "POST /api/auth/mobile/verify-otp": { auth: "registration", body: () => ({ otpCode: "123456" }) },
  "POST /api/auth/email/send-verification-code": { auth: "registration" },
  "POST /api/auth/email/verify": { auth: "registration", body: () => ({ code: "123456" }) },

  // own account: every role
  "GET /api/auth/profile": { ok: [200] },
  "PUT /api/auth/profile": { perm: "read", body: () => ({ name: "Renamed Member" }), ok: [200] },
  "POST /api/auth/change-password": {
    perm: "read",
    body: () => ({ currentPassword: "correct horse battery", newPassword: "a brand new passphrase 42" }),
    ok: [200],
  },
  "PUT /api/auth/2fa": { perm: "read", body: () => ({ enabled: false, password: "correct horse battery" }), ok: [200] },
  // a new number per request: the code send limits count per number (docs/authentication.md)
  "POST /api/auth/profile/mobile/send-otp": {
    perm: "read",
    body: () => ({ mobile: `9198${String(12_345_678 + ++seq).slice(-8)}`, password: "correct horse battery" }),
    ok: [200],
  },
  // no code was sent to this number: a valid body, answered 400 on otpCode
  "POST /api/auth/profile/mobile/verify": { perm: "read", body: () => ({ mobile: "919812345678", otpCode: "123456" }), ok: [400] },

  // sessions (docs/sessions.md); a fresh disconnected session per request
  "GET /api/v1/chatapp": { ok: [200], seed: async (c) => void (await sessionId(c)) },
  "POST /api/v1/chatapp": { perm: "manage", body: () => ({ name: `matrix-${++seq}` }), ok: [201] },
  "GET /api/v1/chatapp/{id}": { params: sessionId, ok: [200] },
  "DELETE /api/v1/chatapp/{id}": { perm: "manage", params: sessionId, ok: [200] },
  "POST /api/v1/chatapp/{id}/connect": { perm: "manage", params: sessionId, ok: [200] },
  "GET /api/v1/chatapp/{id}/status": { params: sessionId, ok: [200] },
  // group chats (docs/groups.md): owner and admin change the setting, every role lists
  "PATCH /api/v1/chatapp/{id}": { perm: "manage", params: sessionId, body: () => ({ settings: { groups: true } }), ok: [200] },
  "GET /api/v1/chatapp/{id}/groups": { params: sessionId, ok: [200] },
  "GET /api/external/chatapp/{id}/groups": { auth: "apiKey", params: sessionId, ok: [200] },
  "GET /api/v1/chatapp/{id}/qr": { perm: "manage", params: sessionId, ok: [409] },
  "POST /api/v1/chatapp/{id}/pairing-code": { perm: "manage", params: sessionId, body: () => ({ phoneNumber: "919812345678" }), ok: [409] },
  "POST /api/v1/chatapp/{id}/disconnect": { perm: "manage", params: sessionId, ok: [409] },
  // the session is not connected and the number not cached: 502 CHATAPP_UNAVAILABLE
  "POST /api/v1/chatapp/{id}/check": { perm: "messaging", params: sessionId, body: () => ({ phones: ["919812345678"] }), ok: [502] },
  "POST /api/external/chatapp/{id}/check": { auth: "apiKey", perm: "messaging", params: sessionId, body: () => ({ phones: ["919812345678"] }), ok: [502] },
  "GET /api/external/sessions": { auth: "apiKey", ok: [200], seed: async (c) => void (await sessionId(c)) },

  // the sim network's controls (docs/network-drivers.md): the session is disconnected, so the network refuses (409)
  "POST /api/sim/sessions/{id}/scan": { perm: "manage", params: sessionId, body: () => ({ phoneNumber: "919812345678" }), ok: [409] },
  "POST /api/sim/sessions/{id}/inbound": { perm: "manage", params: sessionId, body: () => ({ from: "919812345678", text: "hi" }), ok: [409] },
  "POST /api/sim/sessions/{id}/receipt": { perm: "manage", params: sessionId, body: () => ({ messageId: "SIMX", status: "read" }), ok: [404, 409] },
  "POST /api/sim/sessions/{id}/logout": { perm: "manage", params: sessionId, body: () => ({}), ok: [409] },
  "POST /api/sim/sessions/{id}/fail": { perm: "manage", params: sessionId, body: () => ({ count: 1 }), ok: [200, 409] },
  "POST /api/sim/sessions/{id}/groups": { perm: "manage", params: sessionId, body: () => ({ name: "Crew", participants: ["919812345678"] }), ok: [409] },
  "POST /api/sim/absent": { perm: "manage", body: () => ({ phones: ["919812345699"] }), ok: [200] },

  // webhooks (docs/webhooks.md)
  "GET /api/webhooks/events": { auth: "public" },
  "GET /api/webhooks": { ok: [200], seed: async (c) => void (await webhookId(c)) },
  "POST /api/webhooks": {
    perm: "manage",
    body: async (c) => {
      await connectedSession(c);
      return { name: "matrix", url: HOOK_URL, events: ["message.received"] };
    },
    ok: [201],
  },
  "GET /api/webhooks/{id}": { params: webhookId, ok: [200] },
  "PATCH /api/webhooks/{id}": { perm: "manage", params: webhookId, body: () => ({ name: "renamed" }), ok: [200] },
  "DELETE /api/webhooks/{id}": { perm: "manage", params: webhookId, ok: [200] },
  "POST /api/webhooks/{id}/rotate-secret": { perm: "manage", params: webhookId, ok: [200] },
  "GET /api/webhooks/{id}/history": { params: webhookId, ok: [200] },
  "POST /api/webhooks/{id}/test": { perm: "manage", params: webhookId, ok: [200] },
  "POST /api/webhooks/{id}/deliveries/{deliveryId}/retry": { perm: "manage", params: deliveryIds, ok: [200] },

  // messages (docs/messages.md): the session is connected in the database; the sender runs later
  "POST /api/v1/messages/send": { auth: "jwtOrApiKey", perm: "messaging", body: sendBody, bodyIds: true, ok: [202] },
  "POST /api/external/messages/send": { auth: "apiKey", perm: "messaging", body: sendBody, bodyIds: true, ok: [202] },
  "GET /api/external/messages/{id}": { auth: "apiKey", params: messageId, ok: [200] },
  "GET /api/v1/messages/{id}": { params: messageId, ok: [200] },
  "GET /api/v1/messages": { ok: [200], seed: async (c) => void (await messageId(c)) },
  "DELETE /api/v1/messages/{id}": { perm: "messaging", params: scheduledMessageId, ok: [200] },
  "POST /api/v1/media": { perm: "messaging", body: pdf, ok: [201] },
  "GET /api/v1/media/{id}": { params: mediaId, ok: [200] },
  "POST /api/external/media": { auth: "apiKey", perm: "messaging", body: pdf, ok: [201] },
  "GET /api/external/media/{id}": { auth: "apiKey", params: mediaId, ok: [200] },

  // analytics: every member reads
  "GET /api/v1/analytics/messages": { ok: [200] },
  "GET /api/v1/analytics/campaigns": { ok: [200] },
  // inbox and contacts
  "GET /api/v1/inbox/conversations": { ok: [200], seed: async (c) => void (await inbound(c)) },
  "GET /api/v1/inbox/conversations/{id}": { params: async (c) => ({ id: (await inbound(c)).id }), ok: [200] },
  "GET /api/v1/inbox/conversations/{id}/messages": { params: async (c) => ({ id: (await inbound(c)).id }), ok: [200] },
  "POST /api/v1/inbox/conversations/{id}/read": { perm: "messaging", params: async (c) => ({ id: (await inbound(c)).id }), ok: [200] },
  "PUT /api/v1/inbox/conversations/{id}/assign": {
    perm: "messaging",
    params: async (c) => ({ id: (await inbound(c)).id }),
    body: ({ ws }) => ({ userId: ws.owner.userId }),
    bodyIds: true,
    ok: [200],
  },
  "PATCH /api/v1/inbox/conversations/{id}": { perm: "messaging", params: async (c) => ({ id: (await inbound(c)).id }), body: () => ({ status: "pending", labels: ["matrix"] }), ok: [200] },
  "POST /api/v1/inbox/conversations/{id}/notes": { perm: "messaging", params: async (c) => ({ id: (await inbound(c)).id }), body: () => ({ body: "a note" }), ok: [201] },
  // q is required: without it the answer is 400, which the matrix accepts for an allowed caller
  "GET /api/v1/inbox/search": { seed: async (c) => void (await inbound(c)) },
  "GET /api/v1/quick-replies": { ok: [200], seed: async (c) => void (await quickReplyId(c)) },
  "GET /api/v1/quick-replies/{id}": { params: quickReplyId, ok: [200] },
  "POST /api/v1/quick-replies": { perm: "manage", body: () => ({ shortcut: `new${++seq}`, body: "Thanks!" }), ok: [201] },
  "PATCH /api/v1/quick-replies/{id}": { perm: "manage", params: quickReplyId, body: () => ({ body: "Changed" }), ok: [200] },
  "DELETE /api/v1/quick-replies/{id}": { perm: "manage", params: quickReplyId, ok: [200] },
  "GET /api/v1/contacts": { ok: [200], seed: async (c) => void (await inbound(c)) },
  "GET /api/v1/contacts/{id}": { params: async (c) => ({ id: (await inbound(c)).contactId }), ok: [200] },
  // history for API keys (read-only)
  "GET /api/external/messages": { auth: "apiKey", ok: [200], seed: async (c) => void (await messageId(c)) },
  "GET /api/external/contacts": { auth: "apiKey", ok: [200], seed: async (c) => void (await inbound(c)) },
  "GET /api/external/contacts/{id}": { auth: "apiKey", params: async (c) => ({ id: (await inbound(c)).contactId }), ok: [200] },
  "POST /api/v1/contacts": { perm: "messaging", body: () => ({ phone: newPhone(), tags: ["matrix"] }), ok: [201] },
  "PATCH /api/v1/contacts/{id}": { perm: "messaging", params: contactId, body: () => ({ name: "Matrix", tags: ["x"] }), ok: [200] },
  "DELETE /api/v1/contacts/{id}": { perm: "messaging", params: contactId, ok: [200] },
  "POST /api/v1/contacts/import": { perm: "messaging", body: csvUpload, ok: [202] },
  "GET /api/v1/contacts/imports/{id}": { params: importId, ok: [200] },
  "GET /api/v1/contacts/export": { ok: [200], seed: async (c) => void (await contactId(c)) },
  // segments follow contacts (docs/contacts-and-campaigns.md): owner, admin and agent write; everyone reads and previews
  "GET /api/v1/segments": { ok: [200], seed: async (c) => void (await segmentId(c)) },
  "POST /api/v1/segments": { perm: "messaging", body: () => ({ name: `matrix ${++seq}`, filter: { tagsAny: ["matrix"] } }), ok: [201] },
  "POST /api/v1/segments/preview": { perm: "read", body: () => ({ filter: { tagsAny: ["matrix"] } }), ok: [200] },
  "GET /api/v1/segments/{id}": { params: segmentId, ok: [200] },
  "PATCH /api/v1/segments/{id}": { perm: "messaging", params: segmentId, body: () => ({ filter: { tagsNone: ["x"] } }), ok: [200] },
  "DELETE /api/v1/segments/{id}": { perm: "messaging", params: segmentId, ok: [200] },

  // auto-replies (docs/automations.md): owner and admin manage, every role reads
  "GET /api/v1/automations": { ok: [200], seed: async (c) => void (await automationId(c)) },
  "POST /api/v1/automations": { perm: "manage", body: () => automationBody, ok: [201] },
  "GET /api/v1/automations/{id}": { params: automationId, ok: [200] },
  "PATCH /api/v1/automations/{id}": { perm: "manage", params: automationId, body: () => ({ name: "renamed" }), ok: [200] },
  "DELETE /api/v1/automations/{id}": { perm: "manage", params: automationId, ok: [200] },

  // campaigns (docs/contacts-and-campaigns.md): owner and admin manage, every role reads
  "POST /api/v1/campaigns": { perm: "manage", body: campaignBody, bodyIds: true, ok: [201] },
  "GET /api/v1/campaigns": { ok: [200], seed: async (c) => void (await campaignId(c)) },
  "GET /api/v1/campaigns/{id}": { params: (c) => campaignId(c), ok: [200] },
  "PATCH /api/v1/campaigns/{id}": { perm: "manage", params: (c) => campaignId(c), body: () => ({ name: "renamed" }), ok: [200] },
  "DELETE /api/v1/campaigns/{id}": { perm: "manage", params: (c) => campaignId(c), ok: [200] },
  "POST /api/v1/campaigns/{id}/start": { perm: "manage", params: (c) => campaignId(c), ok: [200] },
  "POST /api/v1/campaigns/{id}/pause": { perm: "manage", params: (c) => campaignId(c, "start"), ok: [200] },
  "POST /api/v1/campaigns/{id}/resume": { perm: "manage", params: (c) => campaignId(c, "pause"), ok: [200] },
  "POST /api/v1/campaigns/{id}/cancel": { perm: "manage", params: (c) => campaignId(c), ok: [200] },
  "POST /api/v1/campaigns/{id}/retry-failed": { perm: "manage", params: (c) => campaignId(c), ok: [409] },
  "GET /api/v1/campaigns/{id}/recipients": { params: (c) => campaignId(c, "start"), ok: [200] },

  // API keys (docs/api.md)
  "POST /api/api-keys": { perm: "manage", body: () => ({ name: "matrix" }), ok: [201] },
  "GET /api/api-keys": { perm: "manage", ok: [200], seed: async (c) => void (await apiKeyId(c)) },
  "DELETE /api/api-keys/{id}": { perm: "manage", params: apiKeyId, ok: [200] },

  // team
  "GET /api/team/members": { ok: [200] },
  "PATCH /api/team/members/{id}": { perm: "team", params: memberId, body: () => ({ role: "viewer" }), ok: [200] },
  "DELETE /api/team/members/{id}": { perm: "team", params: memberId, ok: [200] },
  "POST /api/team/transfer-ownership": {
    perm: "billing",
    body: async ({ ws }) => ({ userId: (await ws.member("admin")).userId }),
    bodyIds: true,
    ok: [200],
  },
  "GET /api/team/invitations": { perm: "team", ok: [200], seed: async (c) => void (await invitationId(c)) },
  "POST /api/team/invitations": { perm: "team", body: () => ({ email: uniqueEmail(), role: "agent" }), ok: [201] },
  "POST /api/team/invitations/{id}/resend": { perm: "team", params: resendableInvitationId, ok: [200] },
  "DELETE /api/team/invitations/{id}": { perm: "team", params: invitationId, ok: [200] },

  // workspace
  "GET /api/workspace": { ok: [200] },
  "PATCH /api/workspace": { perm: "team", body: () => ({ name: "Renamed by matrix" }), ok: [200] },

  // billing (no Razorpay keys here: checkout and verify answer 409 "billing is manual")
  "GET /api/billing/plans": { ok: [200] },
  "GET /api/billing/subscription": { ok: [200] },
  "GET /api/billing/invoices": { ok: [200], seed: async ({ t, ws }) => void (await setPlanManually(t.deps, ws.id, "pro", "monthly")) },
  "POST /api/billing/checkout": { perm: "billing", body: () => ({ planId: "pro", interval: "monthly" }), ok: [409] },
  "POST /api/billing/verify": {
    perm: "billing",
    body: () => ({ razorpay_order_id: "order_matrix", razorpay_payment_id: "pay_matrix", razorpay_signature: "00" }),
    ok: [409],
  },
};

// ---------------------------------------------------------------------------------------------
