import { quietOnBrokenPipe } from "../src/node/tty.ts";
import { bar, processed, RateMeter, timeLeft, type Stats } from "./campaigns-progress.ts";
import { FreshToken } from "./fresh-token.ts";
import { OperatorError, callApi, openOperator, ownerToken, type Operator, type OperatorFlags } from "./operator.ts";

interface CampaignLine extends Stats {
  id: string;
  workspaceId: string;
  workspace: string;
  name: string;
  status: string;
  pausedReason: string | null;
}

/** Campaigns of every workspace, or of one (read from the database beside the running server). */
export async function listCampaignRows(op: Pick<Operator, "db">, workspaceId: string | null): Promise<CampaignLine[]> {
  return op.db
    .prepare<CampaignLine>(
      `SELECT c.id, c.workspace_id AS "workspaceId", w.name AS workspace, c.name, c.status, c.paused_reason AS "pausedReason",
              c.total, c.pending, c.sent, c.delivered, c."read", c.failed, c.skipped
       FROM campaigns c JOIN workspaces w ON w.id = c.workspace_id
       WHERE CAST(?1 AS TEXT) IS NULL OR c.workspace_id = ?1 ORDER BY w.name, c.id DESC`,
    )
    .all(workspaceId);
}

interface WatchState {
  name: string;
  status: string;
  pausedReason: string | null;
  waitingUntil: string | null;
  stats: Stats;
  perMinute: number | null;
  error?: string;
}

type Ink = typeof import("ink");

const watchScreen = ({ Box, Text }: Ink) =>
  function WatchScreen({ s }: { s: WatchState }) {
    const pct = s.stats.total ? Math.floor((processed(s.stats) / s.stats.total) * 100) : 0;
    const left = timeLeft(s.stats, s.perMinute);
    const color = s.status === "completed" ? "green" : s.status === "paused" ? "yellow" : s.status === "running" ? "cyan" : "red";
    return (
      <Box flexDirection="column">
        <Text bold>
          Campaign "{s.name}": <Text color={color}>{s.status}</Text>
          {s.pausedReason ? ` (${s.pausedReason})` : ""}
          {s.waitingUntil ? `, waiting until ${new Date(s.waitingUntil).toLocaleString()}` : ""}
        </Text>
        <Text>
          {bar(s.stats)} {pct}% ({processed(s.stats)}/{s.stats.total})
        </Text>
        <Text>
          sent {s.stats.sent} · delivered {s.stats.delivered} · read {s.stats.read} · failed {s.stats.failed} · skipped {s.stats.skipped} · pending {s.stats.pending}
        </Text>
        <Text>
          rate {s.perMinute === null ? "-" : `${Math.round(s.perMinute)}/min`} · time left {left ?? "-"}
        </Text>
        {s.error ? <Text color="red">{s.error}</Text> : null}
      </Box>
    );
  };

/** Campaign statuses after which nothing moves any more: watch ends (0 only for completed). */
const FINAL: Record<string, number> = { completed: 0, cancelled: 1, failed: 1 };

/** Follows a campaign on the running server until it ends; resolves to the exit code. */
export async function watch(id: string, flags: OperatorFlags & { interval: string }): Promise<number> {
  const intervalMs = Number(flags.interval) * 1000;
  if (!Number.isFinite(intervalMs) || intervalMs < 100) throw new OperatorError("--interval must be at least 0.1 seconds");
  const op = await openOperator(flags);
  const row = await op.db.prepare<{ workspaceId: string; name: string }>('SELECT workspace_id AS "workspaceId", name FROM campaigns WHERE id = ?').get(id);
  if (!row) throw new OperatorError(`no campaign ${id}`);
  // minted again before each call: the server refuses access tokens issued over 15 minutes ago
  const tokens = new FreshToken(() => ownerToken(op, row.workspaceId, 300), 60_000);
  const meter = new RateMeter();
  const empty: Stats = { total: 0, pending: 0, sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0 };
  let state: WatchState = { name: row.name, status: "…", pausedReason: null, waitingUntil: null, stats: empty, perMinute: null };
  const ink = await import("ink");
  const WatchScreen = watchScreen(ink);
  quietOnBrokenPipe(); // Ink writes to process.stdout (a stream): its reader may go away
  const view = ink.render(<WatchScreen s={state} />, { patchConsole: false, exitOnCtrlC: false });
  let stop = false;
  const onInterrupt = () => (stop = true);
  process.once("SIGINT", onInterrupt);
  let code = 130;
  let failures = 0;
  while (!stop) {
    try {
      const r = await callApi(op, await tokens.get(), "GET", `/api/v1/campaigns/${id}`);
      if (r.status !== 200) throw new OperatorError(`${r.body?.code ?? r.status}: ${r.body?.message ?? "request failed"}`);
      const c = r.body.data;
      meter.add(Date.now(), processed(c.stats));
      state = { name: c.name, status: c.status, pausedReason: c.pausedReason, waitingUntil: c.waitingUntil, stats: c.stats, perMinute: meter.perMinute() };
      failures = 0;
      if (c.status in FINAL) {
        code = FINAL[c.status]!;
        stop = true;
      }
    } catch (err) {
      // a restarting server is waited for a while; a lasting failure ends the watch
      if (++failures >= 10) {
        state = { ...state, error: err instanceof Error ? err.message : String(err) };
        code = 1;
        stop = true;
      } else state = { ...state, error: `retrying: ${err instanceof Error ? err.message : String(err)}` };
    }
    view.rerender(<WatchScreen s={state} />);
    if (!stop) await Bun.sleep(intervalMs);
  }
  process.off("SIGINT", onInterrupt);
  view.unmount();
  return code;
}
