import type { SessionRow } from "./repo.ts";

/** Whether a start-up brings the session back (the same rule as `orphanSessions` in lease-repo.ts, on a fresh row). */
export function restorable(row: SessionRow): boolean {
  if (row.status === "connected") return true;
  return row.status === "disconnected" && row.lastDisconnectReason === "connection_lost" && row.credentials !== null && row.phoneNumber !== null;
}

/** The gap before the next restored session: 20-100 % of `maxMs`, so restarts do not line up. */
export function restoreGap(maxMs: number, random: () => number = Math.random): number {
  return Math.round(maxMs * (0.2 + 0.8 * random()));
}

/** Pauses between restored sessions; stop() ends the current one and makes later ones instant. */
export class Pauses {
  private wake: (() => void) | null = null;
  private stopped = false;

  /** Waits `ms`, or less when stop() comes first. */
  pause(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /** Ends the pauses (shutdown). */
  stop(): void {
    this.stopped = true;
    this.wake?.();
  }
}
