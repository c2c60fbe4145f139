import type { Statement as SqliteStatement } from "bun:sqlite";
import { and, asc, count, eq, isNull, or, sql } from "drizzle-orm";
import { oncePer } from "../../db/prepared.ts";
import { firstUse } from "../../memo.ts";
import { sqliteOf } from "../../db/sqlite.ts";
import type { DB, Statement } from "../../db/store.ts";
import type { Role } from "./roles.ts";
import { users } from "./table.ts";

/**
 * The only owner of the `users` table: every read and write of a member goes through here.
 * Other modules' SQL that must see members in the same statement (a count in a listing, a
 * join for a name) takes its fragment from `usersSql`, so the table's shape stays in one file.
 */

export type UserRow = typeof users.$inferSelect;

/**
 * A user by email, across workspaces: login and password reset start from an email alone
 * (emails are unique over the whole installation).
 */
export async function findUserByEmail(db: DB, email: string): Promise<UserRow | undefined> {
  return db.select().from(users).where(eq(users.email, email)).get();
}

/** A user of a workspace. */
export async function getUser(db: DB, workspaceId: string, userId: string): Promise<UserRow | undefined> {
  return db
    .select()
    .from(users)
    .where(and(eq(users.workspaceId, workspaceId), eq(users.id, userId)))
    .get();
}

/** Whether any account (in any workspace) uses this email. */
export async function emailTaken(db: DB, email: string): Promise<boolean> {
  return !!(await db.select({ id: users.id }).from(users).where(eq(users.email, email)).get());
}

/** Inserts a member (joins the transaction in progress: registration writes its workspace first). */
export async function insertUser(db: DB, row: typeof users.$inferInsert): Promise<void> {
  await db.insert(users).values(row).run();
}

type UserChanges = Partial<Pick<UserRow, "name" | "passwordHash" | "mobile" | "mobileVerifiedAt" | "emailVerifiedAt" | "twoFactorEnabled">>;

/** Updates a user of a workspace. */
export async function updateUser(db: DB, workspaceId: string, userId: string, changes: UserChanges, now: number): Promise<void> {
  await db
    .update(users)
    .set({ ...changes, updatedAt: now })
    .where(and(eq(users.workspaceId, workspaceId), eq(users.id, userId)))
    .run();
}

/**
 * Creates a member from an accepted invitation: the mail proved the address, so the email is
 * verified; a mobile given at acceptance is not (nothing checked it), so it gets no login codes.
 */
export async function insertInvitedMember(
  db: DB,
  workspaceId: string,
  u: { id: string; email: string; name: string; passwordHash: string; mobile: string | null; role: Role; at: number },
): Promise<void> {
  await insertUser(db, {
    id: u.id,
    workspaceId,
    email: u.email,
    name: u.name,
    passwordHash: u.passwordHash,
    mobile: u.mobile,
    role: u.role,
    mobileVerifiedAt: null,
    emailVerifiedAt: u.at,
    createdAt: u.at,
    updatedAt: u.at,
  });
}

/** A member's profile columns, as `PROFILE_COLUMNS` reads them (`u` is the users row). */
export interface ProfileRow {
  id: string;
  email: string;
  name: string;
  role: Role;
  tenantId: string;
  tenantName: string | null;
  twoFactorEnabled: number;
  mobile: string | null;
  mobileVerifiedAt: number | null;
}

/**
 * The profile's columns of a users row `u`. The workspace name is a correlated subquery, not
 * a join: this SQLite build runs a two-table join several times slower than a lookup with a
 * subquery (3 us against 0.4 us in memory), and a user has exactly one workspace (foreign key).
 * The JWT guard reads the caller with these columns too, so GET /api/auth/profile answers
 * from the guard's row: one statement a request, not two (statements are its cost).
 */
const PROFILE_COLUMNS = `u.id, u.email, u.name, u.role, u.workspace_id AS "tenantId",
  (SELECT w.name FROM workspaces w WHERE w.id = u.workspace_id) AS "tenantName",
  u.two_factor_enabled AS "twoFactorEnabled", u.mobile, u.mobile_verified_at AS "mobileVerifiedAt"`;

const PROFILE_SQL = `SELECT ${PROFILE_COLUMNS} FROM users u WHERE u.workspace_id = ? AND u.id = ?`;

/** The profile columns of a member of a workspace. */
export async function getProfileRow(db: DB, workspaceId: string, userId: string): Promise<ProfileRow | undefined> {
  return db.prepare<ProfileRow>(PROFILE_SQL).get(workspaceId, userId);
}

// by id alone: the request guard checks the workspace against the token's
const MEMBER_SQL = `SELECT ${PROFILE_COLUMNS} FROM users u WHERE u.id = ?`;

/** The profile row of a user by id, prepared once per store; `sync` reads on SQLite's connection (null on PostgreSQL). */
export interface ProfileById {
  get: Statement<ProfileRow>["get"];
  sync: SqliteStatement<ProfileRow, [string]> | null;
}

/**
 * The reads of the request guard, on every authenticated request: through the store, and on
 * SQLite also straight on its connection for the guard's synchronous path (an idle connection,
 * no transaction open).
 */
export const profileById = oncePer((db: DB): ProfileById => {
  const stmt = db.prepare<ProfileRow>(MEMBER_SQL);
  const sqlite = sqliteOf(db);
  return { get: (...params) => stmt.get(...params), sync: sqlite ? sqlite.prepare<ProfileRow, [string]>(MEMBER_SQL) : null };
});

export type MemberRow = Pick<UserRow, "id" | "email" | "name" | "role" | "twoFactorEnabled" | "createdAt">;

const memberColumns = firstUse(() => ({ id: users.id, email: users.email, name: users.name, role: users.role, twoFactorEnabled: users.twoFactorEnabled, createdAt: users.createdAt }));

/** Members, owner first then by join date. */
export async function listMembers(db: DB, workspaceId: string, page: number, limit: number): Promise<{ rows: MemberRow[]; total: number }> {
  const where = eq(users.workspaceId, workspaceId);
  const ownerFirst = sql`CASE ${users.role} WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'agent' THEN 2 ELSE 3 END`;
  const rows = await db.select(memberColumns()).from(users).where(where).orderBy(ownerFirst, asc(users.createdAt), asc(users.id)).limit(limit).offset((page - 1) * limit).all();
  return { rows, total: (await db.select({ n: count() }).from(users).where(where).get())!.n };
}

/** One member of the workspace, or undefined. */
export async function findMember(db: DB, workspaceId: string, userId: string): Promise<MemberRow | undefined> {
  return db.select(memberColumns()).from(users).where(and(eq(users.workspaceId, workspaceId), eq(users.id, userId))).get();
}

/** Sets a member's role. */
export async function setRole(db: DB, workspaceId: string, userId: string, role: Role, at: number): Promise<void> {
  await db.update(users).set({ role, updatedAt: at }).where(and(eq(users.workspaceId, workspaceId), eq(users.id, userId))).run();
}

/** Deletes a member (their sessions of the dashboard end: the guard reads the user on every request). */
export async function deleteMember(db: DB, workspaceId: string, userId: string): Promise<boolean> {
  return (await db.delete(users).where(and(eq(users.workspaceId, workspaceId), eq(users.id, userId))).returning({ id: users.id }).all()).length > 0;
}

/** Members of the workspace now. */
export async function countMembers(db: DB, workspaceId: string): Promise<number> {
  return (await db.select({ n: count() }).from(users).where(eq(users.workspaceId, workspaceId)).get())!.n;
}

/** Members without a verified mobile number: they cannot receive a login code. */
export async function countMembersWithoutVerifiedMobile(db: DB, workspaceId: string): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.workspaceId, workspaceId), or(isNull(users.mobile), isNull(users.mobileVerifiedAt))))
    .get();
  return row!.n;
}

/** Members of a workspace (operator CLI). */
export async function listUsersOf(db: DB, workspaceId: string) {
  return db
    .select({ id: users.id, email: users.email, name: users.name, role: users.role, mobile: users.mobile, emailVerifiedAt: users.emailVerifiedAt, mobileVerifiedAt: users.mobileVerifiedAt, createdAt: users.createdAt })
    .from(users)
    .where(eq(users.workspaceId, workspaceId))
    .orderBy(asc(users.createdAt))
    .all();
}

/** Mail addresses of the workspace owners (for deactivation notices). */
export async function ownerEmails(db: DB, workspaceId: string): Promise<string[]> {
  const rows = await db
    .select({ email: users.email })
    .from(users)
    .where(and(eq(users.workspaceId, workspaceId), eq(users.role, "owner")))
    .all();
  return rows.map((r) => r.email);
}

/** The id of a workspace's owner (the first one), if it has one. */
export async function ownerId(db: DB, workspaceId: string): Promise<string | undefined> {
  return (await db.prepare<{ id: string }>("SELECT id FROM users WHERE workspace_id = ? AND role = 'owner' LIMIT 1").get(workspaceId))?.id;
}

const ROLE_SQL = "SELECT role FROM users WHERE workspace_id = ? AND id = ?";

/** A member's current role in a workspace; null when the user is gone (or in another workspace). */
export async function memberRole(db: DB, workspaceId: string, userId: string): Promise<Role | null> {
  return (await db.prepare<{ role: Role }>(ROLE_SQL).get(workspaceId, userId))?.role ?? null;
}

/** memberRole with its statement prepared once, for callers that ask every few seconds. */
export function memberRoleReader(db: DB): (workspaceId: string, userId: string) => Promise<Role | null> {
  const q = db.prepare<{ role: Role }>(ROLE_SQL);
  return async (workspaceId, userId) => (await q.get(workspaceId, userId))?.role ?? null;
}

/** Users whose email is still unverified and who registered at `cutoff` or before. */
export async function unverifiedUsersSince(db: DB, cutoff: number): Promise<{ id: string; workspaceId: string }[]> {
  return db.prepare<{ id: string; workspaceId: string }>(`SELECT id, workspace_id AS "workspaceId" FROM users WHERE email_verified_at IS NULL AND created_at <= ?`).all(cutoff);
}

/** Deletes a user if their email is still unverified; the rows deleted (0 or 1). */
export async function deleteUnverifiedUser(db: DB, workspaceId: string, userId: string): Promise<number> {
  return (await db.prepare("DELETE FROM users WHERE workspace_id = ? AND id = ? AND email_verified_at IS NULL").run(workspaceId, userId)).changes;
}

/**
 * Fragments of SQL over `users` for statements of other modules that must see members in the
 * same statement. Each takes the SQL expressions it compares with (a column, a placeholder).
 */
export const usersSql = {
  /** the number of members of workspace `ws` */
  memberCount: (ws: string) => `(SELECT count(*) FROM users u WHERE u.workspace_id = ${ws})`,
  /** the email of an owner of workspace `ws`, or NULL */
  ownerEmail: (ws: string) => `(SELECT u.email FROM users u WHERE u.workspace_id = ${ws} AND u.role = 'owner' LIMIT 1)`,
  /** true when user `id` of workspace `ws` is its only member and has not verified their email */
  soleUnverifiedMember: (ws: string, id: string) =>
    `EXISTS (SELECT 1 FROM users WHERE workspace_id = ${ws} AND id = ${id} AND email_verified_at IS NULL)
     AND NOT EXISTS (SELECT 1 FROM users WHERE workspace_id = ${ws} AND id <> ${id})`,
  /** a LEFT JOIN of the member `id` of workspace `ws` as alias `alias` (its name and email) */
  joinMember: (alias: string, ws: string, id: string) => `LEFT JOIN users ${alias} ON ${alias}.id = ${id} AND ${alias}.workspace_id = ${ws}`,
};
