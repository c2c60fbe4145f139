import type { Command } from "commander";
import qrcodeTerminal from "qrcode-terminal";
import {
  OperatorError,
  callApi,
  findSession,
  openOperator,
  operatorOptions,
  ownerToken,
  runOperator,
  type Operator,
  type OperatorFlags,
  type SessionRef,
} from "./sessions.ts";

interface PairState {
  session: SessionRef;
  url: string;
  phase: "starting" | "qr" | "connected" | "failed";
  status: string;
  qr?: string;
  rotation: number;
  expiresAt?: string;
  phone?: string;
  message?: string;
}

/** The QR as terminal blocks (two modules per character cell). */
function qrBlocks(text: string): string {
  let out = "";
  qrcodeTerminal.generate(text, { small: true }, (s) => (out = s));
  return out;
}

type Ink = typeof import("ink");

/** The screen, over Ink's components (loaded only when pairing, so other commands start fast). */
const pairScreen = ({ Box, Text }: Ink) =>
  function PairScreen({ s }: { s: PairState }) {
    const expires = s.expiresAt ? new Date(s.expiresAt).toLocaleTimeString() : "";
    return (
      <Box flexDirection="column">
        <Text bold>
          Pairing session "{s.session.name}" ({s.session.id}) on {s.url}
        </Text>
        {s.phase === "qr" && s.qr ? (
          <Box flexDirection="column">
            <Text>{s.qr}</Text>
            <Text>
              Scan with the phone (Linked devices, Link a device). QR #{s.rotation}
              {expires ? `, valid until ${expires}` : ""}
            </Text>
          </Box>
        ) : null}
        <Text>Status: {s.status}</Text>
        {s.phase === "connected" ? <Text color="green">Connected as +{s.phone}</Text> : null}
        {s.phase === "failed" ? <Text color="red">Pairing failed: {s.message}</Text> : null}
      </Box>
    );
  };

/** Opens the real-time socket and resolves once the server says it is subscribed. */
function openEvents(op: Operator, token: string, onEvent: (e: { event: string; data: any }) => void): Promise<WebSocket> {
  const ws = new WebSocket(`${op.url.replace(/^http/, "ws")}/api/ws?token=${encodeURIComponent(token)}`);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new OperatorError(`no answer from ${op.url}/api/ws`)), 10_000);
    ws.onmessage = (m) => {
      const e = JSON.parse(String(m.data)) as { event: string; data: any };
      if (e.event === "ready") {
        clearTimeout(timer);
        resolve(ws);
      } else onEvent(e);
    };
    ws.onerror = () => {
      clearTimeout(timer);
      reject(new OperatorError(`cannot open ${op.url}/api/ws; is the server running? (--url)`));
    };
  });
}

/** Pairs a session on the running server, drawing each QR until linked; resolves to the exit code. */
async function pair(ref: string, flags: OperatorFlags & { timeout: string }): Promise<number> {
  const timeoutMs = Number(flags.timeout) * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new OperatorError("--timeout must be a positive number of seconds");
  const op = openOperator(flags);
  const session = findSession(op, ref, flags.workspace);
  // the token outlives the wait by a minute; it is minted here and never stored
  const token = await ownerToken(op, session.workspaceId, Math.ceil(timeoutMs / 1000) + 60);
  let state: PairState = { session, url: op.url, phase: "starting", status: session.status, rotation: 0 };
  const PairScreen = pairScreen(await import("ink"));
  const ink = (await import("ink")).render(<PairScreen s={state} />, { patchConsole: false, exitOnCtrlC: false });
  let finish!: (code: number) => void;
  const done = new Promise<number>((r) => (finish = r));
  const update = (patch: Partial<PairState>) => {
    if (state.phase === "connected" || state.phase === "failed") return;
    state = { ...state, ...patch };
    ink.rerender(<PairScreen s={state} />);
    if (state.phase === "connected") finish(0);
    if (state.phase === "failed") finish(1);
  };
  const showQr = (qr: string, expiresAt: string) => {
    if (qr === lastQr) return;
    lastQr = qr;
    update({ phase: "qr", status: "qr_pending", qr: qrBlocks(qr), expiresAt, rotation: state.rotation + 1 });
  };
  let lastQr = "";
  let ws: WebSocket | null = null;
  const timer = setTimeout(() => update({ phase: "failed", message: `timed out after ${flags.timeout}s` }), timeoutMs);
  const onInterrupt = () => update({ phase: "failed", message: "cancelled" });
  process.once("SIGINT", onInterrupt);
  try {
    ws = await openEvents(op, token, ({ event, data }) => {
      if (data?.sessionId !== session.id) return;
      if (event === "session_qr") showQr(data.qr, data.expiresAt);
      if (event === "session_status" && data.status === "connected") update({ phase: "connected", status: "connected", phone: data.phoneNumber });
      if (event === "session_status" && data.status === "disconnected") update({ phase: "failed", status: "disconnected", message: data.reason ?? "disconnected" });
    });
    const r = await callApi(op, token, "POST", `/api/v1/chatapp/${session.id}/connect`);
    if (r.status === 409) {
      const st = await callApi(op, token, "GET", `/api/v1/chatapp/${session.id}/status`);
      if (st.body?.data?.status === "connected") update({ phase: "connected", status: "connected", phone: st.body.data.phoneNumber });
      else update({ phase: "failed", message: r.body?.message ?? "conflict" });
    } else if (r.status !== 200) {
      update({ phase: "failed", message: `${r.body?.code ?? r.status}: ${r.body?.message ?? "connect failed"}` });
    } else if (r.body.data.status === "connected") {
      update({ phase: "connected", status: "connected", phone: r.body.data.phoneNumber });
    } else {
      update({ status: r.body.data.status });
      const q = await callApi(op, token, "GET", `/api/v1/chatapp/${session.id}/qr`);
      if (q.status === 200) showQr(q.body.data.qr, q.body.data.expiresAt);
    }
  } catch (err) {
    update({ phase: "failed", message: err instanceof Error ? err.message : String(err) });
  }
  const code = await done;
  clearTimeout(timer);
  process.off("SIGINT", onInterrupt);
  ws?.close();
  if (code !== 0 && state.status === "qr_pending") {
    // stop the pairing we started rather than leave a QR on the server
    await callApi(op, token, "POST", `/api/v1/chatapp/${session.id}/disconnect`).catch(() => undefined);
  }
  ink.unmount();
  return code;
}

/** `parley pair <session>`: pairs a session from the terminal against the running server (D13). */
export function pairCommand(program: Command): void {
  operatorOptions(program.command("pair <session>").description("pair a session from the terminal: shows the QR code until the phone links"))
    .option("--timeout <seconds>", "give up after this long", "180")
    .action((ref: string, flags: OperatorFlags & { timeout: string }) =>
      runOperator(async () => {
        const code = await pair(ref, flags);
        process.exit(code);
      }),
    );
}
