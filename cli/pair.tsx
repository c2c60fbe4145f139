import { quietOnBrokenPipe } from "../src/node/tty.ts";
import qrcodeTerminal from "qrcode-terminal";
import { phoneField } from "../src/http/phone.ts";
import { colorEnabled } from "./context.ts";
import { FreshToken } from "./fresh-token.ts";
import { OperatorError, callApi, openOperator, ownerToken, type Operator, type OperatorFlags } from "./operator.ts";
import { findSession, type SessionRef } from "./sessions.ts";

interface PairState {
  session: SessionRef;
  url: string;
  phase: "starting" | "qr" | "code" | "connected" | "failed";
  /** the 8-character code to type on the phone (`--code`) */
  pairCode?: string;
  codePhone?: string;
  /** the session's status as the running server said it; null until it answers (the data dir's copy may be stale) */
  status: string | null;
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

/** What each disconnect reason (docs/sessions.md) means for the person pairing. */
const REASONS: Record<string, string> = {
  pairing_timeout: "no phone linked before the network stopped offering codes; run parley pair again",
  logged_out: "the phone removed this linked device (or refused the link)",
  replaced: "another device or server took this session over",
  banned: "the network banned this number",
  connection_lost: "the connection to the network dropped",
  user_request: "the session was disconnected on request",
  error: "the network connection failed; the server log has the details",
};

/** A reason code with what it means: `pairing_timeout: no phone linked ...`. */
export function reasonDetail(reason: string | null | undefined): string {
  if (!reason) return "disconnected";
  return REASONS[reason] ? `${reason}: ${REASONS[reason]}` : reason;
}

/** `ABCD1234` as `ABCD-1234`, as phones show it. */
export const formatPairCode = (code: string) => (code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code);

/** The screen, over Ink's components (loaded only when pairing, so other commands start fast). */
const pairScreen = ({ Box, Text }: Ink, color: boolean) =>
  function PairScreen({ s }: { s: PairState }) {
    const expires = s.expiresAt ? new Date(s.expiresAt).toLocaleTimeString() : "";
    return (
      <Box flexDirection="column">
        <Text bold={color}>
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
        {s.pairCode ? (
          <Box flexDirection="column">
            <Text bold={color}>Pairing code: {formatPairCode(s.pairCode)}</Text>
            <Text>
              On the phone +{s.codePhone}: Linked devices, Link a device, Link with phone number instead; then type the code.
            </Text>
          </Box>
        ) : null}
        {s.status !== null ? <Text>Status: {s.status}</Text> : s.phase === "starting" ? <Text>Asking the server…</Text> : null}
        {s.phase === "connected" ? <Text color={color ? "green" : undefined}>Connected as +{s.phone}</Text> : null}
        {s.phase === "failed" ? <Text color={color ? "red" : undefined}>Pairing failed: {s.message}</Text> : null}
      </Box>
    );
  };

type ServerEvent = { event: string; data: any };

/** Opens the real-time socket and resolves once the server says it is subscribed. */
function openEvents(op: Operator, token: string, onEvent: (e: ServerEvent) => void): Promise<WebSocket> {
  const ws = new WebSocket(`${op.url.replace(/^http/, "ws")}/api/ws?token=${encodeURIComponent(token)}`);
  return new Promise((resolve, reject) => {
    const fail = (message: string) => {
      clearTimeout(timer);
      reject(new OperatorError(message));
    };
    const timer = setTimeout(() => fail(`no answer from ${op.url}/api/ws`), 10_000);
    ws.onmessage = (m) => {
      const e = JSON.parse(String(m.data)) as ServerEvent;
      if (e.event === "ready") {
        clearTimeout(timer);
        resolve(ws);
      } else onEvent(e);
    };
    ws.onerror = () => fail(`cannot open ${op.url}/api/ws; is the server running? (--url)`);
    ws.onclose = (e) => fail(`${op.url}/api/ws closed (${e.code})`);
  });
}

/** Waits before each attempt to reopen a lost event stream; then the pairing fails. */
const REOPEN_DELAYS_MS = [250, 500, 1_000, 2_000];
/** The server closes a socket whose token expired with 4001 (reopened at once), and one of a removed member with 4003. */
const CLOSE_TOKEN_EXPIRED = 4001;
const CLOSE_NOT_A_MEMBER = 4003;

interface EventStream {
  close(): void;
}

/**
 * The pairing's event stream: reopened with a fresh token when it closes (the token expired,
 * the server restarted), up to REOPEN_DELAYS_MS attempts in a row; `reopened` then catches up
 * on what was missed, `lost` ends the pairing.
 */
async function eventStream(
  op: Operator,
  tokens: FreshToken,
  h: { event: (e: ServerEvent) => void; reopened: () => Promise<void>; lost: (message: string) => void },
): Promise<EventStream> {
  let ws: WebSocket | null = null;
  let ended = false;
  const open = async () => {
    ws = await openEvents(op, await tokens.get(), h.event);
    ws.onclose = (e) => void (ended ? undefined : reopen(e.code));
  };
  const reopen = async (code: number) => {
    ws = null;
    if (code === CLOSE_NOT_A_MEMBER) return h.lost("the server closed the event stream: the workspace owner is no longer a member");
    for (const [i, delay] of REOPEN_DELAYS_MS.entries()) {
      if (code !== CLOSE_TOKEN_EXPIRED || i > 0) await Bun.sleep(delay);
      if (ended) return;
      try {
        await open();
        await h.reopened();
        return;
      } catch {
        // not back yet: the next attempt waits longer
      }
    }
    h.lost(`lost the connection to the server at ${op.url} (stopped or restarted?) and could not get it back; run parley pair again`);
  };
  await open();
  return {
    close() {
      ended = true;
      ws?.close();
    },
  };
}

/** Lifetime of the tokens the command mints, and the age at which it mints a new one. */
const TOKEN_TTL_SECONDS = 300;
const TOKEN_MAX_AGE_MS = 60_000;

/** Pairs a session on the running server, drawing each QR until linked; resolves to the exit code. */
export async function pair(ref: string, flags: PairFlags): Promise<number> {
  const timeoutMs = Number(flags.timeout) * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new OperatorError("--timeout must be a positive number of seconds");
  const op = await openOperator(flags);
  const session = await findSession(op, ref, flags.workspace);
  // minted again before each call: the server refuses access tokens issued over 15 minutes ago
  const tokens = new FreshToken(() => ownerToken(op, session.workspaceId, TOKEN_TTL_SECONDS), TOKEN_MAX_AGE_MS);
  const api = async (method: string, path: string, body?: unknown) => callApi(op, await tokens.get(), method, path, body);
  // the status stored in the data dir may be stale (a server that stopped while connected): shown only once the server says it
  let state: PairState = { session, url: op.url, phase: "starting", status: null, rotation: 0 };
  const phone = flags.code === undefined ? null : phoneField.safeParse(flags.code);
  if (phone && !phone.success) throw new OperatorError(`--code ${flags.code}: the phone number ${phone.error.issues[0]!.message}`);
  const PairScreen = pairScreen(await import("ink"), colorEnabled());
  quietOnBrokenPipe(); // Ink writes to process.stdout (a stream): its reader may go away
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
    if (qr === lastQr || phone) return; // pairing by code: the QR is not the way in
    lastQr = qr;
    update({ phase: "qr", status: "qr_pending", qr: qrBlocks(qr), expiresAt, rotation: state.rotation + 1 });
  };
  /** `--code`: asks the server for the code the phone types (POST pairing-code, docs/sessions.md). */
  const requestCode = async (digits: string) => {
    // the network may not be ready for a code the instant the pairing starts
    for (let attempt = 0; ; attempt++) {
      const r = await api("POST", `/api/v1/chatapp/${session.id}/pairing-code`, { phoneNumber: digits });
      if (r.status === 200) return update({ phase: "code", status: "qr_pending", pairCode: r.body.data.code, codePhone: digits });
      if (r.status !== 409 || attempt >= 10) return update({ phase: "failed", message: `${r.body?.code ?? r.status}: ${r.body?.message ?? "no pairing code"}` });
      await Bun.sleep(500);
    }
  };
  /** The current QR, if the session has one. */
  const fetchQr = async () => {
    const q = await api("GET", `/api/v1/chatapp/${session.id}/qr`);
    if (q.status === 200) showQr(q.body.data.qr, q.body.data.expiresAt);
  };
  /** After the event stream was reopened: what happened while it was down. */
  const catchUp = async () => {
    const st = (await api("GET", `/api/v1/chatapp/${session.id}/status`)).body?.data;
    if (st?.status === "connected") update({ phase: "connected", status: "connected", phone: st.phoneNumber });
    else if (st?.status === "qr_pending") await fetchQr();
    else if (phone && st?.status === "qr_pending") return;
    else update({ phase: "failed", status: st?.status ?? null, message: `the pairing ended while the connection to the server was down (${reasonDetail(st?.lastDisconnectReason)}); run parley pair again` });
  };
  let lastQr = "";
  let events: EventStream | null = null;
  const timer = setTimeout(() => update({ phase: "failed", message: `timed out after ${flags.timeout}s` }), timeoutMs);
  const onInterrupt = () => update({ phase: "failed", message: "cancelled" });
  process.once("SIGINT", onInterrupt);
  try {
    events = await eventStream(op, tokens, {
      event: ({ event, data }) => {
        if (data?.sessionId !== session.id) return;
        if (event === "session_qr") showQr(data.qr, data.expiresAt);
        if (event === "session_status" && data.status === "connected") update({ phase: "connected", status: "connected", phone: data.phoneNumber });
        if (event === "session_status" && data.status === "disconnected") update({ phase: "failed", status: "disconnected", message: reasonDetail(data.reason) });
      },
      reopened: catchUp,
      lost: (message) => update({ phase: "failed", message }),
    });
    const r = await api("POST", `/api/v1/chatapp/${session.id}/connect`);
    if (r.status === 409) {
      const st = await api("GET", `/api/v1/chatapp/${session.id}/status`);
      if (st.body?.data?.status === "connected") update({ phase: "connected", status: "connected", phone: st.body.data.phoneNumber });
      else update({ phase: "failed", message: r.body?.message ?? "conflict" });
    } else if (r.status !== 200) {
      update({ phase: "failed", message: `${r.body?.code ?? r.status}: ${r.body?.message ?? "connect failed"}` });
    } else if (r.body.data.status === "connected") {
      update({ phase: "connected", status: "connected", phone: r.body.data.phoneNumber });
    } else {
      update({ status: r.body.data.status });
      if (phone) await requestCode(phone.data);
      else await fetchQr();
    }
  } catch (err) {
    update({ phase: "failed", message: err instanceof Error ? err.message : String(err) });
  }
  const code = await done;
  clearTimeout(timer);
  process.off("SIGINT", onInterrupt);
  events?.close();
  if (code !== 0 && state.status === "qr_pending") {
    // stop the pairing we started rather than leave a QR on the server (with a token minted now)
    await api("POST", `/api/v1/chatapp/${session.id}/disconnect`).catch(() => undefined);
  }
  ink.unmount();
  return code;
}

export type PairFlags = OperatorFlags & { timeout: string; code?: string };

/** `parley pair <session>`: pairs a session from the terminal against the running server (docs/operations.md). */
