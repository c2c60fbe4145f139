import type { QueryClient } from "@tanstack/react-query";
import { refresh, tokenStore } from "./tokens.ts";

export interface LiveEvent {
  event: string;
  timestamp?: string;
  data: Record<string, unknown>;
}

type Listener = (e: LiveEvent) => void;
const listeners = new Set<Listener>();

/** Subscribes to every event of /api/ws; returns the unsubscribe function. */
export function onLive(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export type LiveStatus = "connecting" | "live" | "offline";
let status: LiveStatus = "offline";
const statusListeners = new Set<() => void>();
export const liveStatus = {
  get: () => status,
  subscribe(l: () => void) {
    statusListeners.add(l);
    return () => statusListeners.delete(l);
  },
};
function setStatus(s: LiveStatus) {
  status = s;
  for (const l of statusListeners) l();
}

/** Close code of a socket the server found too far behind (it missed events): the page reloads. */
export const TOO_FAR_BEHIND = 4009;

/**
 * Keeps one WebSocket to /api/ws open while signed in. The token travels as the subprotocol
 * (`bearer`, token), never in the URL. The server closes the socket when the token expires
 * (4001); the client then reconnects with the refreshed one. Reconnects back off to 15 s. A
 * socket closed for being too far behind (4009) reloads the page.
 */
export function startLive(queryClient: QueryClient): () => void {
  let ws: WebSocket | null = null;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let currentToken: string | null = null;

  let opening = false;
  const connect = async () => {
    clearTimeout(timer);
    if (opening || ws) return;
    opening = true;
    // a tab that slept may hold an expired token: the upgrade would only be refused
    const exp = tokenStore.get().claims?.exp;
    if (exp && exp * 1000 < Date.now() + 5_000) await refresh();
    opening = false;
    const token = tokenStore.get().access;
    currentToken = token;
    if (!token || stopped) return;
    setStatus("connecting");
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(`${proto}//${location.host}/api/ws`, ["bearer", token]);
    ws.onopen = () => {
      attempt = 0;
      setStatus("live");
      // anything missed while the socket was down
      void queryClient.invalidateQueries();
    };
    ws.onmessage = (m) => {
      let e: LiveEvent;
      try {
        e = JSON.parse(String(m.data)) as LiveEvent;
      } catch {
        return;
      }
      if (!e || typeof e.event !== "string") return;
      invalidateFor(queryClient, e);
      for (const l of listeners) l(e);
    };
    ws.onclose = (e) => {
      ws = null;
      if (stopped) return;
      // the server closed a socket that fell too far behind: what is on screen missed events
      if (e.code === TOO_FAR_BEHIND) return void location.reload();
      setStatus("offline");
      const wait = Math.min(15_000, 500 * 2 ** attempt++) * (0.7 + Math.random() * 0.3);
      timer = setTimeout(() => void connect(), wait);
    };
  };

  // a new access token: reconnect only when the socket is down (the old one lives on until it expires)
  const unsub = tokenStore.subscribe(() => {
    const t = tokenStore.get().access;
    if (!t) {
      ws?.close();
      return;
    }
    if (t !== currentToken && !ws) void connect();
  });
  void connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    unsub();
    ws?.close();
    setStatus("offline");
  };
}

/** Which cached lists an event makes stale. */
function invalidateFor(qc: QueryClient, e: LiveEvent) {
  if (e.event.startsWith("session_")) {
    if (e.event !== "session_qr") void qc.invalidateQueries({ queryKey: ["sessions"] });
  } else if (e.event.startsWith("message_") || e.event === "conversation_updated") {
    void qc.invalidateQueries({ queryKey: ["conversations"] });
    void qc.invalidateQueries({ queryKey: ["thread"] });
  } else if (e.event === "campaign_progress") {
    const id = e.data.campaignId as string;
    qc.setQueryData(["campaign", id], (old: Record<string, unknown> | undefined) => {
      if (!old) return old;
      const { campaignId: _, status, pausedReason, ...stats } = e.data;
      return { ...old, status, pausedReason, stats: { ...(old.stats as object), ...stats } };
    });
    // and read it again: why it waits, and its recipients table (a finished campaign's last
    // sends must not stay "pending" there until a reload)
    void qc.invalidateQueries({ queryKey: ["campaign", id] });
    void qc.invalidateQueries({ queryKey: ["campaigns"] });
  }
}
