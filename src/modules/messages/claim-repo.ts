import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { DB } from "../../db/store.ts";
import { anyOf, anyOfArg } from "../../db/any-of.ts";
import { oncePer, preparedOnce } from "../../db/prepared.ts";
import { messages } from "./table.ts";
import { boundText, isQueued, markSent, queuedOfWorkspace, queuedOfWorkspaceSql, takeable, type MessageRow } from "./repo.ts";

// The sender's batched claims (sender.ts): with no pacing gap, one run of a session's queue
// takes several due heads at once, sends them one after another and commits their outcomes
// together. The statements of one message (repo.ts claimSend, markSent) stay for the single
// head of sendNext; a batch's heads not sent go back in one statement (releaseClaims), whatever its size.

/** A batch claims at most this many heads (the sender asks for fewer when sends are slow). */
export const CLAIM_BATCH_MAX = 32;

/** A head taken for one send attempt, with the attempt's token (each head its own). */
export interface Claim {
  head: MessageRow;
  token: string;
}

// literal LIMIT, like nextQueued's, so SQLite keeps its plan over the partial queue index
const headsStmt = preparedOnce((db) =>
  db
    .select()
    .from(messages)
    .where(and(eq(messages.workspaceId, boundText("ws")), eq(messages.sessionId, boundText("session")), isQueued(), takeable()))
    .orderBy(asc(messages.id))
    .limit(sql.raw(String(CLAIM_BATCH_MAX)) as unknown as number)
    .prepare(),
);

/** SQLite: the session's first queued heads that may go (`takeable`), in queue order. */
export async function queuedHeads(db: DB, workspaceId: string, sessionId: string): Promise<MessageRow[]> {
  return await headsStmt(db).all({ ws: workspaceId, session: sessionId });
}

/**
 * PostgreSQL: the first `limit` heads of the session's queue (`takeable`, in order) claimed in
 * one statement, each with its own token (`token` + "." + its id) and one more attempt, up to
 * the first head that may not go now: one an attempt holds (a token: in flight, or cut short
 * by a crash), one waiting for its retry at `at`, or one of `except`. Nothing behind such a
 * head is claimed, so nothing overtakes it. Returns the claims in queue order, each head as
 * nextQueued read it (before the claim).
 *
 * The heads are chosen in an array (`= ANY(ARRAY(...))`, computed once before the update), not
 * an `IN (subquery)`: PostgreSQL then finds the rows to update by their primary key whatever
 * its statistics say. With `IN`, the generic plan of this prepared statement joined the
 * subquery with a sequential scan of every message (seen on a freshly filled table: a claim
 * read the whole table, and the drain fell tenfold).
 */
const headsClaimStmt = preparedOnce((db) =>
  db
    .update(messages)
    .set({
      sendingToken: sql`${sql.placeholder("token")} || '.' || ${messages.id}` as unknown as string,
      attempts: sql`${messages.attempts} + 1`,
      updatedAt: sql.placeholder("at") as unknown as number,
    })
    .where(
      and(
        queuedOfWorkspace(sql.placeholder("ws")),
        isNull(messages.sendingToken),
        sql`${messages.id} = ANY(ARRAY(WITH h AS (
            SELECT q.id, q.sending_token, q.next_attempt_at FROM ${messages} q
            WHERE q.workspace_id = ${sql.placeholder("ws")} AND q.session_id = ${sql.placeholder("session")} AND q.status = 'queued'
              AND (q.campaign_id IS NULL OR q.sending_token IS NOT NULL
                OR NOT EXISTS (SELECT 1 FROM campaigns k WHERE k.id = q.campaign_id AND k.status IN ('paused', 'scheduled')))
            ORDER BY q.id LIMIT ${sql.placeholder("limit")})
          SELECT h.id FROM h WHERE NOT EXISTS (SELECT 1 FROM h b WHERE b.id <= h.id
            AND (b.sending_token IS NOT NULL OR coalesce(b.next_attempt_at, 0) > ${sql.placeholder("at")}
              OR b.id IN (SELECT jsonb_array_elements_text(${sql.placeholder("except")}::jsonb))))))`,
      ),
    )
    .returning()
    .prepare(),
);

export async function claimHeadsIfDue(db: DB, workspaceId: string, sessionId: string, token: string, at: number, except: string[], limit: number): Promise<Claim[]> {
  const rows = await headsClaimStmt(db).all({ ws: workspaceId, session: sessionId, token, at, except: JSON.stringify(except), limit });
  return rows
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((row) => ({ head: { ...row, sendingToken: null, attempts: row.attempts - 1 }, token: row.sendingToken! }));
}

const pgStatements = oncePer((db: DB) => ({
  sent: db.prepare<{ id: string }>(
    `UPDATE messages AS m SET status = 'sent', network_message_id = r.nid, sending_token = NULL, next_attempt_at = NULL, sent_at = ?, updated_at = ?
     FROM jsonb_to_recordset(?::jsonb) AS r(id text, token text, nid text)
     WHERE m.id ${anyOf(db)}
       AND ${queuedOfWorkspaceSql("m")} AND m.id = r.id AND m.sending_token = r.token
     RETURNING m.id`,
  ),
}));

/**
 * Records the network's acceptance of several attempts of one workspace (PostgreSQL: one
 * statement; the rows found by their primary key, as in claimHeadsIfDue). Returns the ids
 * marked sent: an attempt whose token no longer holds (its row failed or was given back
 * meanwhile) is left as it is.
 */
export async function markSentMany(db: DB, workspaceId: string, sent: { id: string; token: string; nid: string }[], at: number): Promise<Set<string>> {
  if (db.engine === "postgres") {
    const ids = anyOfArg(db, sent.map((s) => s.id));
    const rows = await pgStatements(db).sent.all(at, at, JSON.stringify(sent), ids, workspaceId);
    return new Set(rows.map((r) => r.id));
  }
  const marked = new Set<string>();
  for (const s of sent) if (await markSent(db, workspaceId, s.id, s.token, s.nid, at)) marked.add(s.id);
  return marked;
}

/**
 * Gives attempts back uncounted, in one statement: heads of a batch that were claimed but not
 * sent (the session went away, the lease moved, or an earlier head must be retried first).
 * Tokens are unique to their row, so ids and tokens are matched as two lists.
 */
export async function releaseClaims(db: DB, workspaceId: string, claims: { id: string; token: string }[], at: number): Promise<void> {
  if (!claims.length) return;
  const ids = anyOfArg(db, claims.map((c) => c.id));
  const tokens = anyOfArg(db, claims.map((c) => c.token));
  const pg = db.engine === "postgres";
  const greatest = pg ? "greatest" : "max";
  await db
    .prepare(
      `UPDATE messages SET sending_token = NULL, attempts = ${greatest}(attempts - 1, 0), updated_at = ?
       WHERE ${queuedOfWorkspaceSql()}
         AND id ${anyOf(db)}
         AND sending_token ${anyOf(db)}`,
    )
    .run(at, workspaceId, ids, tokens);
}
