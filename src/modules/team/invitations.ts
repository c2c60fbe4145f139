import { escapeHtml } from "../../http/html.ts";
import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { assertQuota } from "../billing/quota.ts";
import { countStock } from "../billing/usage.ts";
import type { AcceptInput, InvitationStatus, InvitationView, InviteInput } from "./model.ts";
import { publicBaseUrl } from "../../http/public-url.ts";
import { releaseInvitationMailSlot, takeInvitationMailSlot } from "./mail-limit.ts";
import { countMembers, emailTaken, insertInvitedMember } from "../users/repo.ts";
import {
  findInvitation,
  findInvitationByTokenHash,
  findPendingByEmail,
  insertInvitation,
  listOpenInvitations,
  updateInvitation,
  workspaceName,
  type InvitationRow,
} from "./repo.ts";

type Deps = Pick<AppDeps, "db" | "clock" | "config" | "notifier" | "log" | "hasher">;

export const INVITATION_TTL_MS = 7 * 86_400_000;

const sha256 = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");
const newToken = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");

function status(row: InvitationRow, now: number): InvitationStatus {
  if (row.acceptedAt !== null) return "accepted";
  if (row.revokedAt !== null) return "revoked";
  return row.expiresAt <= now ? "expired" : "pending";
}

function view(row: InvitationRow, now: number): InvitationView {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: status(row, now),
    invitedBy: row.invitedBy,
    createdAt: new Date(row.createdAt).toISOString(),
    expiresAt: new Date(row.expiresAt).toISOString(),
  };
}

async function mailInvitation(deps: Deps, row: InvitationRow, token: string): Promise<boolean> {
  const tenant = await workspaceName(deps.db, row.workspaceId);
  const link = `${publicBaseUrl(deps.config)}/accept-invitation?token=${encodeURIComponent(token)}`;
  const expires = new Date(row.expiresAt).toISOString();
  const text =
    `You are invited to join ${tenant} on Parley as ${row.role}.\n\n` +
    `Accept the invitation: ${link}\n\n` +
    `Or send POST /api/team/invitations/accept with {"token": "${token}", "name", "password"}.\n` +
    `The invitation expires at ${expires}.`;
  const html = `<p>You are invited to join <b>${escapeHtml(tenant)}</b> on Parley as ${escapeHtml(row.role)}.</p><p><a href="${escapeHtml(link)}">Accept the invitation</a></p><p>It expires at ${expires}.</p>`;
  try {
    await deps.notifier.sendEmail({ to: row.email, subject: `You are invited to join ${tenant} on Parley`, text, html, kind: "invitation" });
    return true;
  } catch (err) {
    // the invitation stands; the inviter sees emailSent false and can resend
    deps.log.warn("invitation mail failed", { invitationId: row.id, err });
    return false;
  }
}

/**
 * Invites an email with a role. A pending invitation holds a team seat, so the seat check and
 * the insert share one transaction: parallel invites cannot overshoot the plan. The mail goes
 * after the commit, outside it.
 */
export async function invite(deps: Deps, workspaceId: string, input: InviteInput, invitedBy: string | null): Promise<InvitationView & { emailSent: boolean }> {
  const email = input.email.trim().toLowerCase();
  const token = newToken();
  const now = deps.clock.now();
  const row: InvitationRow = {
    id: Bun.randomUUIDv7(),
    workspaceId,
    email,
    role: input.role,
    tokenHash: sha256(token),
    invitedBy,
    createdAt: now.getTime(),
    expiresAt: now.getTime() + INVITATION_TTL_MS,
    acceptedAt: null,
    revokedAt: null,
  };
  const slot = await deps.db.tx(async () => {
    if (await emailTaken(deps.db, email)) throw errors.conflict("An account with this email already exists");
    if (await findPendingByEmail(deps.db, workspaceId, email, now.getTime())) throw errors.conflict("This email already has a pending invitation");
    await assertQuota(deps, workspaceId, "teamSeats", await countStock(deps.db, workspaceId, "teamSeats", now));
    const slot = await takeInvitationMailSlot(deps.db, workspaceId, email, now.getTime());
    await insertInvitation(deps.db, workspaceId, row);
    return slot;
  });
  const emailSent = await mailInvitation(deps, row, token);
  if (!emailSent) await releaseInvitationMailSlot(deps.db, workspaceId, slot);
  return { ...view(row, now.getTime()), emailSent };
}

/** Open invitations (pending and expired) of the workspace. */
export async function listInvitations(deps: Deps, workspaceId: string, page: number, limit: number): Promise<{ items: InvitationView[]; total: number }> {
  const now = deps.clock.now().getTime();
  const { rows, total } = await listOpenInvitations(deps.db, workspaceId, page, limit);
  return { items: rows.map((r) => view(r, now)), total };
}

async function openInvitation(deps: Deps, workspaceId: string, id: string): Promise<InvitationRow> {
  const row = await findInvitation(deps.db, workspaceId, id);
  if (!row) throw errors.notFound("Invitation");
  if (row.acceptedAt !== null) throw errors.conflict("The invitation was already accepted");
  if (row.revokedAt !== null) throw errors.conflict("The invitation was revoked");
  return row;
}

/** Revokes an invitation: its link stops working and its seat is freed. */
export async function revokeInvitation(deps: Deps, workspaceId: string, id: string): Promise<void> {
  await deps.db.tx(async () => {
    await openInvitation(deps, workspaceId, id);
    await updateInvitation(deps.db, workspaceId, id, { revokedAt: deps.clock.now().getTime() });
  });
}

/** Sends the invitation again with a new token (the old link dies) and a fresh 7-day expiry. */
export async function resendInvitation(deps: Deps, workspaceId: string, id: string): Promise<InvitationView & { emailSent: boolean }> {
  const token = newToken();
  const now = deps.clock.now();
  const { row, slot } = await deps.db.tx(async () => {
    const current = await openInvitation(deps, workspaceId, id);
    // an expired invitation no longer holds a seat: renewing it must fit the plan again
    if (current.expiresAt <= now.getTime()) await assertQuota(deps, workspaceId, "teamSeats", await countStock(deps.db, workspaceId, "teamSeats", now));
    const slot = await takeInvitationMailSlot(deps.db, workspaceId, current.email, now.getTime());
    const patch = { tokenHash: sha256(token), expiresAt: now.getTime() + INVITATION_TTL_MS };
    await updateInvitation(deps.db, workspaceId, id, patch);
    return { row: { ...current, ...patch }, slot };
  });
  const emailSent = await mailInvitation(deps, row, token);
  if (!emailSent) await releaseInvitationMailSlot(deps.db, workspaceId, slot);
  return { ...view(row, now.getTime()), emailSent };
}

const badToken = () => errors.validation({ token: "is invalid or has expired" }, "The invitation is invalid or has expired");

/** Accepts an invitation (public): creates a verified member of the inviting workspace. */
export async function acceptInvitation(deps: Deps, input: AcceptInput) {
  const hash = sha256(input.token);
  const before = await findInvitationByTokenHash(deps.db, hash);
  if (!before || status(before, deps.clock.now().getTime()) !== "pending") throw badToken();
  // the shared hasher: its concurrency cap keeps a burst of accepts from exhausting the machine
  const passwordHash = await deps.hasher.hash(input.password);
  const userId = Bun.randomUUIDv7();
  // re-read inside the transaction: two accepts of one token race past the check above
  return deps.db.tx(async () => {
    const now = deps.clock.now().getTime();
    const inv = await findInvitationByTokenHash(deps.db, hash);
    if (!inv || status(inv, now) !== "pending") throw badToken();
    if (await emailTaken(deps.db, inv.email)) throw errors.conflict("An account with this email already exists");
    await assertQuota(deps, inv.workspaceId, "teamSeats", await countMembers(deps.db, inv.workspaceId));
    await insertInvitedMember(deps.db, inv.workspaceId, { id: userId, email: inv.email, name: input.name, passwordHash, mobile: input.mobile ?? null, role: inv.role, at: now });
    await updateInvitation(deps.db, inv.workspaceId, inv.id, { acceptedAt: now });
    return { id: userId, email: inv.email, name: input.name, role: inv.role, tenantId: inv.workspaceId, tenantName: await workspaceName(deps.db, inv.workspaceId) };
  });
}
