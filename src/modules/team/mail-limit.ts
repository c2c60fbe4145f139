import type { DB } from "../../db/open.ts";
import { errors } from "../../errors.ts";
import { deleteInvitationMail, dropOldInvitationMails, insertInvitationMail, recentInvitationMailTimes } from "./repo.ts";

/** invitation mails per recipient: one a minute, five an hour */
export const INVITATION_MAIL_GAP_MS = 60_000;
export const INVITATION_MAILS_PER_HOUR = 5;
const HOUR = 3_600_000;

/**
 * Takes a mail slot for a recipient inside the caller's transaction: 429 RATE_LIMITED with
 * Retry-After when the recipient got an invitation mail within the minute or five within the
 * hour (from any workspace), else records this one. Returns the slot's id.
 */
export async function takeInvitationMailSlot(db: DB, workspaceId: string, email: string, now: number): Promise<string> {
  const recent = await recentInvitationMailTimes(db, email, now - HOUR);
  const last = recent[0];
  if (last !== undefined && now - last < INVITATION_MAIL_GAP_MS) {
    throw errors.rateLimited((last + INVITATION_MAIL_GAP_MS - now) / 1000, "This address got an invitation mail less than a minute ago; retry later");
  }
  if (recent.length >= INVITATION_MAILS_PER_HOUR) {
    const oldest = recent[INVITATION_MAILS_PER_HOUR - 1]!;
    throw errors.rateLimited((oldest + HOUR - now) / 1000, `At most ${INVITATION_MAILS_PER_HOUR} invitation mails an hour to one address; retry later`);
  }
  const id = Bun.randomUUIDv7();
  await insertInvitationMail(db, workspaceId, { id, email, createdAt: now });
  await dropOldInvitationMails(db, email, now - HOUR);
  return id;
}

/** Gives a slot back: a mail that could not be sent reached no one and must not hold the limit. */
export async function releaseInvitationMailSlot(db: DB, workspaceId: string, id: string): Promise<void> {
  await deleteInvitationMail(db, workspaceId, id);
}
