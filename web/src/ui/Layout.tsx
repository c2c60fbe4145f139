import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from "react";
import { Link, useLocation } from "wouter";
import { get, post } from "../api/client.ts";
import { liveStatus } from "../api/live.ts";
import { can, type Permission } from "../api/roles.ts";
import { signedOut, storedRefreshToken } from "../api/tokens.ts";
import { useAuth } from "./hooks.ts";
import { useInboundNotifications, useUnreadConversations, useUnreadTitle } from "./notify.tsx";

const NAV: { href: string; label: string; perm: Permission }[] = [
  { href: "/home", label: "Home", perm: "read" },
  { href: "/inbox", label: "Inbox", perm: "read" },
  { href: "/sessions", label: "Sessions", perm: "read" },
  { href: "/contacts", label: "Contacts", perm: "read" },
  { href: "/segments", label: "Segments", perm: "read" },
  { href: "/campaigns", label: "Campaigns", perm: "read" },
  { href: "/automations", label: "Automations", perm: "read" },
  { href: "/webhooks", label: "Webhooks", perm: "read" },
  { href: "/team", label: "Team", perm: "read" },
  { href: "/api-keys", label: "API keys", perm: "manage" },
  { href: "/billing", label: "Billing", perm: "read" },
  { href: "/profile", label: "Profile", perm: "read" },
];

/** The signed-in frame: header, navigation (what the role may see), the screen. */
export function Layout({ children }: { children: ReactNode }) {
  const { claims } = useAuth();
  const [location, setLocation] = useLocation();
  const [open, setOpen] = useState(false);
  const unread = useUnreadConversations();
  useUnreadTitle(unread);
  useInboundNotifications(setLocation);
  const live = useSyncExternalStore(liveStatus.subscribe, liveStatus.get);
  // a new screen: focus moves to it, so keyboard and screen-reader users start there
  const first = useRef(true);
  const screen = location.split("/")[1];
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById("main")?.focus({ preventScroll: true });
  }, [screen]);
  const profile = useQuery({ queryKey: ["profile"], queryFn: () => get<{ name: string; tenantName: string; email: string }>("/api/auth/profile") });
  // the operator's own workspace (unlimited plan) has no billing to show
  const subscription = useQuery({ queryKey: ["subscription"], queryFn: () => get<{ unlimited?: boolean }>("/api/billing/subscription") });
  const hidden = (href: string) => href === "/billing" && subscription.data?.unlimited === true;

  const signOut = async () => {
    const refreshToken = storedRefreshToken();
    try {
      if (refreshToken) await post("/api/auth/logout", { refreshToken });
    } finally {
      signedOut("You signed out.");
    }
  };

  return (
    <div className="shell">
      <header className="top">
        <a className="skip" href="#main">
          Skip to content
        </a>
        <span className="brand">Parley</span>
        <span className="ws" title="Workspace">
          {profile.data?.tenantName ?? ""}
        </span>
        <span className={`live live-${live}`} role="status">
          {live === "live" ? "Live" : live === "connecting" ? "Connecting…" : "Offline"}
        </span>
        <button type="button" className="menu-toggle" aria-expanded={open} aria-controls="nav" onClick={() => setOpen(!open)}>
          Menu
        </button>
      </header>
      <nav id="nav" className={open ? "nav open" : "nav"} aria-label="Main">
        <ul>
          {NAV.filter((n) => can(claims?.role, n.perm) && !hidden(n.href)).map((n) => (
            <li key={n.href}>
              <Link href={n.href} aria-current={location.startsWith(n.href) ? "page" : undefined} onClick={() => setOpen(false)}>
                {n.label}
                {n.href === "/inbox" && unread > 0 && (
                  <>
                    <span className="unread nav-unread" aria-hidden="true">
                      {unread}
                    </span>
                    <span className="sr-only"> ({unread} unread)</span>
                  </>
                )}
              </Link>
            </li>
          ))}
        </ul>
        <p className="who">
          {profile.data?.name} <span className="badge">{claims?.role}</span>
        </p>
        <button type="button" className="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </nav>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
