import { writeOut } from "../src/node/tty.ts";
import type { Command } from "commander";
import { openOperator, OperatorError, operatorOptions, ownerToken, requireApi, runOperator, type Operator, type OperatorFlags } from "./operator.ts";

export interface SessionRef {
  id: string;
  name: string;
  workspaceId: string;
  status: string;
  phoneNumber: string | null;
}

/** A workspace by id or name; without one, the only workspace there is. */
export async function findWorkspace(op: Pick<Operator, "db">, ref: string | undefined): Promise<{ id: string; name: string }> {
  const all = await op.db.prepare<{ id: string; name: string }>("SELECT id, name FROM workspaces ORDER BY created_at").all();
  const hits = ref ? all.filter((w) => w.id === ref || w.name === ref) : all;
  if (hits.length === 1) return hits[0]!;
  if (!hits.length) throw new OperatorError(ref ? `no workspace "${ref}"` : "there is no workspace yet");
  throw new OperatorError(`${ref ? `"${ref}" names` : "there are"} ${hits.length} workspaces; choose one with --workspace <id>`);
}

/** A session by id or name (names are unique per workspace only). */
export async function findSession(op: Pick<Operator, "db">, ref: string, workspace?: string): Promise<SessionRef> {
  const wsId = workspace ? (await findWorkspace(op, workspace)).id : null;
  const rows = await op.db
    .prepare<SessionRef>(
      `SELECT id, name, workspace_id AS "workspaceId", status, phone_number AS "phoneNumber" FROM chat_sessions
       WHERE (id = ?1 OR name = ?1) AND (CAST(?2 AS TEXT) IS NULL OR workspace_id = ?2)`,
    )
    .all(ref, wsId);
  if (rows.length === 1) return rows[0]!;
  if (!rows.length) throw new OperatorError(`no session "${ref}"${workspace ? ` in workspace ${workspace}` : ""}`);
  throw new OperatorError(`${rows.length} sessions are named "${ref}"; add --workspace <id> or use the session id`);
}

const phone = (p: string | null) => (p ? `+${p}` : "-");

/** `parley sessions list|create|connect|disconnect`. */
export function sessionsCommand(program: Command): void {
  const sessions = program.command("sessions").description("list, create, connect and disconnect sessions (operator, via the data dir)");

  operatorOptions(sessions.command("list").description("list sessions (all workspaces, or one with --workspace)"))
    .option("--json", "print JSON")
    .action((flags: OperatorFlags & { json?: boolean }) =>
      runOperator(async () => {
        const op = await openOperator(flags);
        const wsId = flags.workspace ? (await findWorkspace(op, flags.workspace)).id : null;
        const rows = await op.db
          .prepare<SessionRef & { workspace: string }>(
            `SELECT s.id, s.name, s.workspace_id AS "workspaceId", w.name AS workspace, s.status, s.phone_number AS "phoneNumber"
             FROM chat_sessions s JOIN workspaces w ON w.id = s.workspace_id
             WHERE CAST(?1 AS TEXT) IS NULL OR s.workspace_id = ?1 ORDER BY w.name, s.created_at`,
          )
          .all(wsId);
        if (flags.json) return void writeOut(JSON.stringify(rows, null, 2) + "\n");
        if (!rows.length) return void writeOut("no sessions\n");
        for (const r of rows) writeOut(`${r.id}  ${r.status.padEnd(12)} ${phone(r.phoneNumber).padEnd(17)} ${r.name}  (${r.workspace})\n`);
      }),
    );

  operatorOptions(sessions.command("create <name>").description("create a session in a workspace")).action((name: string, flags: OperatorFlags) =>
    runOperator(async () => {
      const op = await openOperator(flags);
      const ws = await findWorkspace(op, flags.workspace);
      const body = await requireApi(op, await ownerToken(op, ws.id), "POST", "/api/v1/chatapp", { name });
      writeOut(`created ${body.data.id} "${body.data.name}" in ${ws.name}; pair it with: parley pair ${body.data.id}\n`);
    }),
  );

  operatorOptions(sessions.command("connect <session>").description("start linking (QR) or reconnect; see also `parley pair`")).action(
    (ref: string, flags: OperatorFlags) =>
      runOperator(async () => {
        const op = await openOperator(flags);
        const s = await findSession(op, ref, flags.workspace);
        const body = await requireApi(op, await ownerToken(op, s.workspaceId), "POST", `/api/v1/chatapp/${s.id}/connect`);
        writeOut(`${s.name}: ${body.data.status}${body.data.phoneNumber ? ` ${phone(body.data.phoneNumber)}` : ""}\n`);
      }),
  );

  operatorOptions(sessions.command("disconnect <session>").description("disconnect and unlink a session")).action((ref: string, flags: OperatorFlags) =>
    runOperator(async () => {
      const op = await openOperator(flags);
      const s = await findSession(op, ref, flags.workspace);
      await requireApi(op, await ownerToken(op, s.workspaceId), "POST", `/api/v1/chatapp/${s.id}/disconnect`);
      writeOut(`${s.name}: disconnected\n`);
    }),
  );
}
