import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { upsertPlan } from "../../../src/modules/billing/plans.ts";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { accessToken, createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { Mailbox } from "./mailbox.ts";

let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;
const mailbox = new Mailbox();
let seq = 0;
const email = () => `invitee${++seq}@example.com`;

beforeAll(async () => {
  t = await createTestApp({ config: { publicUrl: "https://parley.example.com" } });
  t.deps.notifier = mailbox;
  // an operator-added plan with room for the many members these tests create
  await upsertPlan(t.deps.db, "team-test", { name: "Team test", monthlyPaise: 100, annualPaise: 1000, limits: { teamSeats: 1000 } }, 0);
  a = await createWorkspace(t, { planId: "team-test", status: "active" });
  b = await createWorkspace(t, { planId: "pro", status: "active" });
});
afterAll(() => t.close());

const invite = (ws: TestWorkspace, to: string, role = "agent", token = ws.owner.token) =>
  t.request("POST", "/api/team/invitations", { token, body: { email: to, role } });
const accept = (token: string, extra: Record<string, unknown> = {}) =>
  t.request("POST", "/api/team/invitations/accept", { body: { token, name: "New Person", password: "a long passphrase", ...extra } });
/** Moves a recipient's invitation mails a minute into the past (the per-recipient limit) without moving the clock. */
const ageInvitationMails = async (to: string, ms = 61_000) =>
  await t.deps.db.prepare("UPDATE invitation_mails SET created_at = created_at - ? WHERE email = ?").run(ms, to);
const userRow = async (id: string) => (await t.deps.db.prepare("SELECT * FROM users WHERE id = ?").get(id)) as any;

describe("members", () => {
  test("everyone reads the member list, owner first, with pagination", async () => {
    const viewer = await a.member("viewer");
    const r = await t.request("GET", "/api/team/members", { token: viewer.token });
    expect(r.status).toBe(200);
    expect(r.body.data[0]).toMatchObject({ id: a.owner.userId, role: "owner", email: a.owner.email });
    expect(r.body.data.map((m: any) => m.id)).toContain(viewer.userId);
    expect(r.body.pagination).toMatchObject({ page: 1, limit: 20 });
    expect(JSON.stringify(r.body)).not.toContain("password");
    expect(JSON.stringify(r.body)).not.toContain(b.owner.email);
  });

  test("owner and admin change roles; the owner's role cannot change (409)", async () => {
    const admin = await a.member("admin");
    const agent = await a.member("agent");
    const r = await t.request("PATCH", `/api/team/members/${agent.userId}`, { token: admin.token, body: { role: "viewer" } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: agent.userId, role: "viewer" });
    expect((await userRow(agent.userId)).role).toBe("viewer");
    const owner = await t.request("PATCH", `/api/team/members/${a.owner.userId}`, { token: admin.token, body: { role: "agent" } });
    expect(owner.status).toBe(409);
    expect((await userRow(a.owner.userId)).role).toBe("owner");
    const self = await t.request("PATCH", `/api/team/members/${a.owner.userId}`, { token: a.owner.token, body: { role: "admin" } });
    expect(self.status).toBe(409);
  });

  test("a role change applies at once to the member's existing token", async () => {
    const agent = await a.member("agent");
    expect((await t.request("POST", "/api/api-keys", { token: agent.token, body: { name: "x" } })).status).toBe(403);
    await t.request("PATCH", `/api/team/members/${agent.userId}`, { token: a.owner.token, body: { role: "admin" } });
    expect((await t.request("POST", "/api/api-keys", { token: agent.token, body: { name: "x" } })).status).toBe(201);
  });

  test("nobody can be made owner by a role change (400 naming role)", async () => {
    const agent = await a.member("agent");
    const r = await t.request("PATCH", `/api/team/members/${agent.userId}`, { token: a.owner.token, body: { role: "owner" } });
    expect(r.status).toBe(400);
    expect(r.body.errors.role).toBeDefined();
    expect((await userRow(agent.userId)).role).toBe("agent");
  });

  test("agents and viewers cannot manage the team (403 FORBIDDEN, nothing changes)", async () => {
    const target = await a.member("agent");
    for (const role of ["agent", "viewer"] as const) {
      const m = await a.member(role);
      const r = await t.request("PATCH", `/api/team/members/${target.userId}`, { token: m.token, body: { role: "viewer" } });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("FORBIDDEN");
      expect((await t.request("DELETE", `/api/team/members/${target.userId}`, { token: m.token })).status).toBe(403);
      expect((await invite(a, email(), "agent", m.token)).status).toBe(403);
    }
    expect((await userRow(target.userId)).role).toBe("agent");
  });

  test("removing a member ends their access at once; the owner cannot be removed", async () => {
    const agent = await a.member("agent");
    expect((await t.request("GET", "/api/team/members", { token: agent.token })).status).toBe(200);
    const r = await t.request("DELETE", `/api/team/members/${agent.userId}`, { token: a.owner.token });
    expect(r.status).toBe(200);
    expect(await userRow(agent.userId)).toBeUndefined(); // no row: undefined from the store
    expect((await t.request("GET", "/api/team/members", { token: agent.token })).status).toBe(401);
    const admin = await a.member("admin");
    const owner = await t.request("DELETE", `/api/team/members/${a.owner.userId}`, { token: admin.token });
    expect(owner.status).toBe(409);
    expect(await userRow(a.owner.userId)).toBeDefined();
  });

  test("tenancy: another workspace's member ids answer 404 and nothing changes", async () => {
    const victim = await b.member("agent");
    const patch = await t.request("PATCH", `/api/team/members/${victim.userId}`, { token: a.owner.token, body: { role: "viewer" } });
    expect(patch.status).toBe(404);
    expect(patch.body.code).toBe("NOT_FOUND");
    expect((await t.request("DELETE", `/api/team/members/${victim.userId}`, { token: a.owner.token })).status).toBe(404);
    expect((await userRow(victim.userId)).role).toBe("agent");
    const transfer = await t.request("POST", "/api/team/transfer-ownership", { token: a.owner.token, body: { userId: victim.userId } });
    expect(transfer.status).toBe(404);
    expect((await userRow(victim.userId)).role).toBe("agent");
  });
});

describe("ownership transfer", () => {
  test("only the owner transfers; the new owner gets it, the old one becomes admin", async () => {
    const ws = await createWorkspace(t);
    const admin = await ws.member("admin");
    const refused = await t.request("POST", "/api/team/transfer-ownership", { token: admin.token, body: { userId: admin.userId } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("FORBIDDEN");
    expect((await userRow(admin.userId)).role).toBe("admin");
    expect((await t.request("POST", "/api/team/transfer-ownership", { token: ws.owner.token, body: { userId: ws.owner.userId } })).status).toBe(409);
    const r = await t.request("POST", "/api/team/transfer-ownership", { token: ws.owner.token, body: { userId: admin.userId } });
    expect(r.status).toBe(200);
    expect(r.body.data.owner).toMatchObject({ id: admin.userId, role: "owner" });
    expect(r.body.data.previousOwner).toMatchObject({ id: ws.owner.userId, role: "admin" });
    expect((await userRow(admin.userId)).role).toBe("owner");
    expect((await userRow(ws.owner.userId)).role).toBe("admin");
    // the former owner's token now carries admin rights only
    expect((await t.request("POST", "/api/billing/checkout", { token: ws.owner.token, body: { planId: "pro", interval: "monthly" } })).status).toBe(403);
  });

  test("bad body is 400 naming userId", async () => {
    const r = await t.request("POST", "/api/team/transfer-ownership", { token: a.owner.token, body: { userId: "x" } });
    expect(r.status).toBe(400);
    expect(r.body.errors.userId).toBeDefined();
  });
});

describe("invitations", () => {
  test("invite mails an accept link; the token is never in the answer; only its hash is stored", async () => {
    const to = email();
    const r = await invite(a, to, "viewer");
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ email: to, role: "viewer", status: "pending", invitedBy: a.owner.userId, emailSent: true });
    expect(Date.parse(r.body.data.expiresAt) - Date.parse(r.body.data.createdAt)).toBe(7 * 86_400_000);
    const mail = mailbox.mails.findLast((m) => m.to === to)!;
    expect(mail.kind).toBe("invitation");
    const token = mailbox.tokenFor(to);
    expect(mail.text).toContain(`https://parley.example.com/accept-invitation?token=${token}`);
    expect(mail.html).toContain("accept-invitation?token=");
    expect(JSON.stringify(r.body)).not.toContain(token);
    const row = (await t.deps.db.prepare("SELECT * FROM invitations WHERE id = ?").get(r.body.data.id)) as any;
    expect(row.token_hash).toBe(new Bun.CryptoHasher("sha256").update(token).digest("hex"));
  });

  test("accepting creates a verified member with the invited role and an argon2id password", async () => {
    const to = email();
    await invite(a, to, "admin");
    const hashesBefore = t.deps.hasher.stats().hashes;
    const r = await accept(mailbox.tokenFor(to), { name: "Asha Rao", mobile: "919812345678" });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ email: to, name: "Asha Rao", role: "admin", tenantId: a.id });
    const u = await userRow(r.body.data.id);
    expect(u.workspace_id).toBe(a.id);
    expect(u.email_verified_at).toBe(t.clock.now().getTime());
    expect(u.mobile).toBe("919812345678");
    expect(u.mobile_verified_at).toBeNull(); // nothing verified the mobile
    expect(u.password_hash).toStartWith("$argon2id$v=19$m=19456,t=2,"); // the configured hasher's parameters
    expect(await Bun.password.verify("a long passphrase", u.password_hash)).toBe(true);
    expect(t.deps.hasher.stats().hashes).toBe(hashesBefore + 1); // through the shared, capped hasher
    // the new member is a real member: a token for them works with their role
    const token = await accessToken(t, u.id, a.id, "admin");
    expect((await t.request("GET", "/api/team/invitations", { token })).status).toBe(200);
  });

  test("an invited member (email verified by the invitation, mobile unverified) signs in; codes never go to the unverified mobile", async () => {
    const to = email();
    await invite(a, to, "agent");
    expect((await accept(mailbox.tokenFor(to), { mobile: "919812340000" })).status).toBe(201);
    const login = () => t.request("POST", "/api/auth/login", { body: { email: to, password: "a long passphrase" } });
    const r = await login();
    expect(r.status).toBe(200);
    expect(r.body.data.accessToken).toBeString();
    // with a second factor, the unverified number gets no code (only an ID token could answer)
    const sent: string[] = [];
    const sendMobile = mailbox.sendMobile;
    mailbox.sendMobile = async (m) => void sent.push(m.to);
    await t.deps.db.prepare("UPDATE users SET two_factor_enabled = 1 WHERE email = ?").run(to);
    try {
      const challenge = await login();
      expect(challenge.status).toBe(200);
      expect(challenge.body.data).toMatchObject({ requiresOtp: true, phoneMasked: null });
      expect(sent).toEqual([]);
      const resend = await t.request("POST", "/api/auth/login/send-otp", { body: { loginChallengeToken: challenge.body.data.loginChallengeToken } });
      expect(resend.status).toBe(409);
      expect(sent).toEqual([]);
    } finally {
      mailbox.sendMobile = sendMobile;
    }
  });

  test("a token accepts once", async () => {
    const to = email();
    await invite(a, to);
    const token = mailbox.tokenFor(to);
    const results = await Promise.all([accept(token), accept(token)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(((await t.deps.db.prepare("SELECT count(*) AS n FROM users WHERE email = ?").get(to)) as any).n).toBe(1);
    const again = await accept(token);
    expect(again.status).toBe(400);
    expect(again.body.errors.token).toBeDefined();
  });

  test("invitations expire after 7 days", async () => {
    const to = email();
    await invite(a, to);
    const token = mailbox.tokenFor(to);
    const invitedAt = t.clock.now().getTime();
    t.clock.advance(7 * 86_400_000 + 1);
    try {
      const r = await accept(token);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("VALIDATION_ERROR");
      expect(r.body.errors.token).toBeDefined();
      const fresh = await accessToken(t, a.owner.userId, a.id, "owner");
      const listed = (await t.request("GET", "/api/team/invitations?limit=100", { token: fresh })).body.data.find((i: any) => i.email === to);
      expect(listed.status).toBe("expired");
    } finally {
      t.clock.set(invitedAt); // the fixtures' access tokens live 15 minutes
    }
    expect(((await t.deps.db.prepare("SELECT count(*) AS n FROM users WHERE email = ?").get(to)) as any).n).toBe(0);
  });

  test("revoked invitations cannot be accepted; revoking twice is 409; other workspaces get 404", async () => {
    const to = email();
    const id = (await invite(a, to)).body.data.id;
    expect((await t.request("DELETE", `/api/team/invitations/${id}`, { token: b.owner.token })).status).toBe(404);
    expect((await t.request("DELETE", `/api/team/invitations/${id}`, { token: a.owner.token })).status).toBe(200);
    expect((await accept(mailbox.tokenFor(to))).status).toBe(400);
    expect((await t.request("DELETE", `/api/team/invitations/${id}`, { token: a.owner.token })).status).toBe(409);
    const list = await t.request("GET", "/api/team/invitations?limit=100", { token: a.owner.token });
    expect(list.body.data.map((i: any) => i.id)).not.toContain(id);
  });

  test("resend mails a new link; the old one stops working", async () => {
    const to = email();
    const id = (await invite(a, to)).body.data.id;
    const first = mailbox.tokenFor(to);
    expect((await t.request("POST", `/api/team/invitations/${id}/resend`, { token: b.owner.token })).status).toBe(404);
    await ageInvitationMails(to); // past the one-a-minute limit per recipient
    const r = await t.request("POST", `/api/team/invitations/${id}/resend`, { token: a.owner.token });
    expect(r.status).toBe(200);
    const second = mailbox.tokenFor(to);
    expect(second).not.toBe(first);
    expect((await accept(first)).status).toBe(400);
    expect((await accept(second)).status).toBe(201);
  });

  test("invitation mails per recipient: one a minute, five an hour; a refusal is 429 with Retry-After and changes nothing", async () => {
    const to = email();
    const mailsTo = () => mailbox.mails.filter((m) => m.to === to).length;
    const inv = await invite(a, to);
    expect(inv.status).toBe(201);
    const id = inv.body.data.id;
    const stored = async () => (await t.deps.db.prepare("SELECT token_hash AS h, expires_at AS e FROM invitations WHERE id = ?").get(id));
    const before = await stored();
    await ageInvitationMails(to, 30_000); // the mail went out 30 s ago
    const early = await t.request("POST", `/api/team/invitations/${id}/resend`, { token: a.owner.token });
    expect(early.status).toBe(429);
    expect(early.body.code).toBe("RATE_LIMITED");
    expect(early.headers.get("retry-after")).toBe("30");
    expect(await stored()).toEqual(before); // the old link still works, nothing renewed
    expect(mailsTo()).toBe(1);
    // the limit is the recipient's, whichever workspace invites
    const other = await invite(b, to);
    expect(other.status).toBe(429);
    expect(((await t.deps.db.prepare("SELECT count(*) AS n FROM invitations WHERE email = ?").get(to)) as any).n).toBe(1);
    // four more resends, a minute apart (aged rows: the fixtures' tokens live 15 minutes), then the hourly cap
    await ageInvitationMails(to, 31_000);
    for (let i = 0; i < 4; i++) {
      if (i > 0) await ageInvitationMails(to);
      expect((await t.request("POST", `/api/team/invitations/${id}/resend`, { token: a.owner.token })).status).toBe(200);
    }
    expect(mailsTo()).toBe(5);
    await ageInvitationMails(to);
    const capped = await t.request("POST", `/api/team/invitations/${id}/resend`, { token: a.owner.token });
    expect(capped.status).toBe(429);
    expect(Number(capped.headers.get("retry-after"))).toBeGreaterThan(60);
    expect(mailsTo()).toBe(5);
    // another recipient is not affected
    expect((await invite(a, email())).status).toBe(201);
  });

  test("a mail that could not be sent does not hold the recipient's limit", async () => {
    const to = email();
    mailbox.failing = true;
    let id: string;
    try {
      const r = await invite(a, to);
      expect(r.body.data.emailSent).toBe(false);
      id = r.body.data.id;
    } finally {
      mailbox.failing = false;
    }
    const again = await t.request("POST", `/api/team/invitations/${id}/resend`, { token: a.owner.token });
    expect(again.status).toBe(200);
    expect(again.body.data.emailSent).toBe(true);
  });

  test("an email with an account or a pending invitation is 409 CONFLICT", async () => {
    expect((await invite(a, b.owner.email)).status).toBe(409);
    expect((await invite(a, b.owner.email.toUpperCase())).status).toBe(409);
    const to = email();
    expect((await invite(a, to)).status).toBe(201);
    const dup = await invite(a, to, "viewer");
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("CONFLICT");
  });

  test("validation failures name the field", async () => {
    const bad = await invite(a, "not-an-email", "agent");
    expect(bad.status).toBe(400);
    expect(bad.body.errors.email).toBeDefined();
    const owner = await invite(a, email(), "owner");
    expect(owner.status).toBe(400);
    expect(owner.body.errors.role).toBeDefined();
    const to = email();
    await invite(a, to);
    const short = await accept(mailbox.tokenFor(to), { password: "short" });
    expect(short.status).toBe(400);
    expect(short.body.errors.password).toBeDefined();
    const common = await accept(mailbox.tokenFor(to), { password: "password123" });
    expect(common.status).toBe(400);
    expect(common.body.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(common.body.errors)).toEqual(["password"]);
    expect(((await t.deps.db.prepare("SELECT count(*) AS n FROM users WHERE email = ?").get(to)) as any).n).toBe(0);
    const mobile = await accept(mailbox.tokenFor(to), { mobile: "+91 98" });
    expect(mobile.body.errors.mobile).toBeDefined();
    const noName = await t.request("POST", "/api/team/invitations/accept", { body: { token: mailbox.tokenFor(to), password: "a long passphrase" } });
    expect(noName.body.errors.name).toBe("is required");
  });

  test("a mail that cannot be sent still creates the invitation and says so", async () => {
    mailbox.failing = true;
    try {
      const r = await invite(a, email());
      expect(r.status).toBe(201);
      expect(r.body.data.emailSent).toBe(false);
    } finally {
      mailbox.failing = false;
    }
  });

  test("another workspace's invitations never show", async () => {
    const to = email();
    await invite(b, to);
    const list = await t.request("GET", "/api/team/invitations?limit=100", { token: a.owner.token });
    expect(JSON.stringify(list.body)).not.toContain(to);
  });
});

describe("team seats are a plan limit", () => {
  test("members plus pending invitations fill the seats; then 403 LIMIT_EXCEEDED; revoking frees one", async () => {
    const ws = await createWorkspace(t, { planId: "starter", status: "active" }); // 3 seats
    await ws.member("agent");
    const first = await invite(ws, email());
    expect(first.status).toBe(201);
    const over = await invite(ws, email());
    expect(over.status).toBe(403);
    expect(over.body.code).toBe("LIMIT_EXCEEDED");
    expect(((await t.deps.db.prepare("SELECT count(*) AS n FROM invitations WHERE workspace_id = ?").get(ws.id)) as any).n).toBe(1);
    await t.request("DELETE", `/api/team/invitations/${first.body.data.id}`, { token: ws.owner.token });
    expect((await invite(ws, email())).status).toBe(201);
  });

  test("the Free plan has one seat: the owner", async () => {
    const ws = await createWorkspace(t, { planId: "free", status: "free" });
    const r = await invite(ws, email());
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("LIMIT_EXCEEDED");
  });

  test("accepting is refused when the plan shrank below the team meanwhile", async () => {
    const ws = await createWorkspace(t, { planId: "starter", status: "active" });
    const to = email();
    await invite(ws, to);
    await ws.member("agent");
    await ws.member("agent"); // members inserted behind the invitation's back: 3 of 3 seats used
    const r = await accept(mailbox.tokenFor(to));
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("LIMIT_EXCEEDED");
  });

  test("race: 50 parallel invitations at the limit minus one, exactly one succeeds", async () => {
    const ws = await createWorkspace(t, { planId: "growth", status: "active" }); // 5 seats
    for (let i = 0; i < 3; i++) await ws.member("agent");
    const results = await Promise.all(Array.from({ length: 50 }, () => invite(ws, email())));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 403)).toHaveLength(49);
    expect(results.filter((r) => r.status === 403).every((r) => r.body.code === "LIMIT_EXCEEDED")).toBe(true);
    expect(((await t.deps.db.prepare("SELECT count(*) AS n FROM invitations WHERE workspace_id = ?").get(ws.id)) as any).n).toBe(1);
  });
});
