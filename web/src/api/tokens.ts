// The sign-in state. The access token lives only in memory; the refresh token in this tab's
// sessionStorage (survives a reload, gone with the tab, never shared between tabs: two tabs
// rotating one refresh token would look like reuse and end the login, docs/authentication.md).
const REFRESH_KEY = "parley.refreshToken";

export type Role = "owner" | "admin" | "agent" | "viewer";
export interface Claims {
  sub: string;
  tenant: string;
  role: Role;
  exp: number;
}

interface State {
  access: string | null;
  claims: Claims | null;
  booting: boolean;
  /** why the last sign-in ended, shown on the log-in screen */
  endedReason: string | null;
}

let state: State = { access: null, claims: null, booting: true, endedReason: null };
const listeners = new Set<() => void>();
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let inflight: Promise<boolean> | null = null;

function set(patch: Partial<State>) {
  state = { ...state, ...patch };
  for (const l of listeners) l();
}

export const tokenStore = {
  get: () => state,
  subscribe(l: () => void) {
    listeners.add(l);
    return () => listeners.delete(l);
  },
};

function decode(jwt: string): Claims | null {
  try {
    const part = jwt.split(".")[1] ?? "";
    return JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/"))) as Claims;
  } catch {
    return null;
  }
}

/** Keeps a new pair and schedules the next refresh a minute before the access token expires. */
export function signedIn(accessToken: string, refreshToken: string) {
  sessionStorage.setItem(REFRESH_KEY, refreshToken);
  const claims = decode(accessToken);
  set({ access: accessToken, claims, booting: false, endedReason: null });
  clearTimeout(refreshTimer);
  if (typeof claims?.exp === "number") {
    const wait = Math.max(5_000, claims.exp * 1000 - Date.now() - 60_000);
    refreshTimer = setTimeout(() => void refresh(), wait);
  }
}

/** Forgets every token; `reason` is shown on the log-in screen. */
export function signedOut(reason: string | null = null) {
  clearTimeout(refreshTimer);
  sessionStorage.removeItem(REFRESH_KEY);
  set({ access: null, claims: null, booting: false, endedReason: reason });
}

export function storedRefreshToken(): string | null {
  return sessionStorage.getItem(REFRESH_KEY);
}

/**
 * Trades the refresh token for a new pair. Serialised: concurrent callers share one request,
 * since a rotated token presented twice revokes the whole login (docs/authentication.md).
 */
export function refresh(): Promise<boolean> {
  inflight ??= (async () => {
    const token = storedRefreshToken();
    if (!token) {
      signedOut(state.access ? "Your sign-in ended. Sign in again." : null);
      return false;
    }
    try {
      const res = await fetch("/api/auth/refresh", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ refreshToken: token }),
      });
      const body = (await res.json()) as { success: boolean; data?: { accessToken: string; refreshToken: string } };
      if (body.success && body.data) {
        signedIn(body.data.accessToken, body.data.refreshToken);
        return true;
      }
      if (res.status === 401) signedOut("Your sign-in ended. Sign in again.");
      else set({ booting: false });
      return false;
    } catch {
      set({ booting: false });
      return false;
    } finally {
      inflight = null;
    }
  })();
  return inflight;
}

/** At start-up: resume the tab's login if it has a refresh token. */
export async function boot() {
  if (storedRefreshToken()) await refresh();
  else set({ booting: false });
}
