import { and, asc, count, eq, sql } from "drizzle-orm";
import type { DB } from "../../db/open.ts";
import { preparedOnce } from "../../db/prepared.ts";
import { chatSessions, type SessionStatus } from "./table.ts";

export type SessionRow = typeof chatSessions.$inferSelect;
export type SessionPatch = Partial<Omit<SessionRow, "id" | "workspaceId" | "createdAt">>;

/** Number of sessions of a workspace (the plan limit counts them). */
export async function countSessions(db: DB, workspaceId: string): Promise<number> {
  return (await db.select({ n: count() }).from(chatSessions).where(eq(chatSessions.workspaceId, workspaceId)).get())?.n ?? 0;
}

/** A session of the workspace by name. */
export async function findSessionByName(db: DB, workspaceId: string, name: string): Promise<SessionRow | undefined> {
  return await db
    .select()
    .from(chatSessions)
    .where(and(eq(chatSessions.workspaceId, workspaceId), eq(chatSessions.name, name)))
    .get();
}

/** A session of the workspace by id; another workspace's id finds nothing (docs/api.md: 404). */
export async function getSession(db: DB, workspaceId: string, id: string): Promise<SessionRow | undefined> {
  return await byIdStmt(db).get({ ws: workspaceId, id });
}
// prepared once: every sim inbound message and every session route looks the session up
const byIdStmt = preparedOnce((db) =>
  db.select().from(chatSessions).where(and(eq(chatSessions.workspaceId, sql.placeholder("ws")), eq(chatSessions.id, sql.placeholder("id")))).prepare(),
);

/**
 * Whether a session of the workspace keeps its group chats, or undefined when the workspace has
 * no such session: one column, where `getSession` reads the whole row (its credentials document
 * included). The sim's inbound route asks it for every message it injects.
 */
export async function sessionKeepsGroups(db: DB, workspaceId: string, id: string): Promise<boolean | undefined> {
  const row = await db.prepare<{ groups: number | boolean }>(`SELECT "groups" FROM chat_sessions WHERE workspace_id = ? AND id = ?`).get(workspaceId, id);
  return row ? Boolean(row.groups) : undefined;
}

/** One page of the workspace's sessions, oldest first, with the total. */
export async function listSessions(db: DB, workspaceId: string, page: number, limit: number): Promise<{ rows: SessionRow[]; total: number }> {
  const rows = await db
    .select()
    .from(chatSessions)
    .where(eq(chatSessions.workspaceId, workspaceId))
    .orderBy(asc(chatSessions.createdAt), asc(chatSessions.id))
    .limit(limit)
    .offset((page - 1) * limit)
    .all();
  return { rows, total: await countSessions(db, workspaceId) };
}

type SessionStatusRow = { id: string; name: string; status: SessionStatus; phoneNumber: string | null; createdAt: number };

/**
 * The API-key listing is hot: plain rows from a statement prepared once, ordered here rather
 * than by `ORDER BY`, which no index serves and whose temporary B-tree cost ten times the
 * lookup itself. Same order: created_at, then id (ASCII ids: JS and the database compare alike).
 */
const STATUSES = `SELECT id, name, status, phone_number AS "phoneNumber", created_at AS "createdAt" FROM chat_sessions WHERE workspace_id = ?`;

/** The tables `listSessionStatuses` reads (the guard keeps its answer on PostgreSQL until one changes). */
export const SESSION_STATUS_TABLES = ["chat_sessions"] as const;

/** Every session of the workspace: id, name, status and number, oldest first. */
export async function listSessionStatuses(db: DB, workspaceId: string): Promise<{ id: string; name: string; status: SessionStatus; phoneNumber: string | null }[]> {
  const rows = await db.prepare<SessionStatusRow>(STATUSES).all(workspaceId);
  if (rows.length > 1) rows.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return rows.map((r) => ({ id: r.id, name: r.name, status: r.status, phoneNumber: r.phoneNumber }));
}

/** Inserts a new session row. */
export async function insertSession(db: DB, workspaceId: string, row: Omit<typeof chatSessions.$inferInsert, "workspaceId">): Promise<void> {
  await db.insert(chatSessions).values({ ...row, workspaceId }).run();
}

/** Updates a session of the workspace. */
export async function updateSession(db: DB, workspaceId: string, id: string, patch: SessionPatch): Promise<void> {
  await db
    .update(chatSessions)
    .set(patch)
    .where(and(eq(chatSessions.workspaceId, workspaceId), eq(chatSessions.id, id)))
    .run();
}

/** Deletes a session of the workspace. */
export async function deleteSession(db: DB, workspaceId: string, id: string): Promise<void> {
  await db
    .delete(chatSessions)
    .where(and(eq(chatSessions.workspaceId, workspaceId), eq(chatSessions.id, id)))
    .run();
}

// ---- system-wide lookups of the session manager (no caller's workspace exists there) ----

/**
 * A session by id alone. Only the session manager uses it, for network events, which carry
 * the session id and nothing else; callers acting for a workspace use `getSession`.
 */
export async function sessionForNetworkEvent(db: DB, id: string): Promise<SessionRow | undefined> {
  return await db.select().from(chatSessions).where(eq(chatSessions.id, id)).get();
}

