import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { api } from "../api/client.ts";
import { onLive } from "../api/live.ts";
import { fmtAddress } from "./hooks.ts";

const supported = () => typeof window !== "undefined" && "Notification" in window;

/** The number of conversations with unread messages (live: every message and conversation event refetches it). */
export function useUnreadConversations(): number {
  const q = useQuery({
    queryKey: ["conversations", "unread-count"],
    queryFn: () => api<unknown[]>("GET", "/api/v1/inbox/conversations?unread=true&limit=1"),
  });
  return q.data?.pagination?.total ?? 0;
}

/** The tab title carries the unread count: "(3) Inbox · Parley". */
export function useUnreadTitle(unread: number) {
  useEffect(() => {
    document.title = unread > 0 ? `(${unread}) Parley` : "Parley";
  }, [unread]);
}

/**
 * Desktop notifications for new inbound messages, once the person allowed them (the browser asks
 * only when they press "Turn on notifications"). Only while the tab is not in front: a person
 * looking at the inbox sees the message arrive there. A click brings the tab forward to the inbox.
 */
export function useInboundNotifications(open: (path: string) => void) {
  useEffect(() => {
    if (!supported()) return;
    return onLive((e) => {
      if (e.event !== "message_received" || Notification.permission !== "granted") return;
      if (document.visibilityState === "visible" && document.hasFocus()) return;
      const d = e.data as { from?: string; pushName?: string | null; text?: string; type?: string; groupId?: string };
      const who = d.pushName || fmtAddress(d.from);
      const n = new Notification(`New message from ${who}`, { body: d.text || `[${d.type ?? "message"}]`, tag: String(e.data.messageId ?? "") });
      n.onclick = () => {
        window.focus();
        open("/inbox");
        n.close();
      };
    });
  }, [open]);
}

/** Asks for the browser's permission to notify, on a click only; says what was decided. */
export function NotifyButton() {
  const [perm, setPerm] = useState(() => (supported() ? Notification.permission : "unsupported"));
  if (perm === "unsupported") return null;
  if (perm === "granted") return <span className="muted small">Notifications on</span>;
  if (perm === "denied") return <span className="muted small">Notifications blocked in the browser</span>;
  return (
    <button type="button" className="secondary small" onClick={() => void Notification.requestPermission().then(setPerm)}>
      Turn on notifications
    </button>
  );
}
