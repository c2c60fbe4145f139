import type { AppDeps } from "../../deps.ts";
import { NetworkError, type NumberCheck } from "../../network/driver.ts";
import { freshCheckNow, freshChecks, saveChecks } from "./repo.ts";

/** How long an answer of the network is trusted. */
export const CHECK_TTL_MS = 86_400_000;
/** Numbers in one question to the network (its own limit). */
export const CHECK_BATCH = 50;

type Deps = Pick<AppDeps, "db" | "clock" | "network" | "log">;

interface Pending {
  workspaceId: string;
  sessionId: string;
  phones: Set<string>;
  done: Promise<Map<string, boolean>>;
  resolve(v: Map<string, boolean>): void;
  reject(err: unknown): void;
}

const checkers = new WeakMap<object, NumberChecker>();

/** The one checker of a runtime (so concurrent callers share its batches). */
export function numberChecker(deps: Deps): NumberChecker {
  let c = checkers.get(deps);
  if (!c) checkers.set(deps, (c = new NumberChecker(deps)));
  return c;
}

/**
 * Whether numbers are on the network, for the check route, the sender and campaigns. Answers
 * come from the database first (cached a day); the rest are asked through a connected session,
 * batched: every number asked of one session in the same turn of the event loop (or by a caller
 * whose cache look-up was under way then) goes in one question of at most 50 (more make several),
 * and a number already being asked is not asked twice. Answers are stored as they come.
 */
export class NumberChecker {
  private pending = new Map<string, Pending>();
  private inflight = new Map<string, Promise<Map<string, boolean>>>();
  /** cache look-ups under way: a batch about to be asked waits for them, so their numbers join it */
  private reading = new Set<Promise<unknown>>();

  constructor(private deps: Deps) {}

  /** Whether the driver can answer at all (the sim and baileys can). */
  get supported(): boolean {
    return typeof this.deps.network.checkNumbers === "function";
  }

  /** The cached answers only, without asking the network. */
  cached(workspaceId: string, phones: string[]): Promise<Map<string, boolean>> {
    return freshChecks(this.deps.db, workspaceId, phones, this.deps.clock.now().getTime());
  }

  /**
   * Answers for the numbers: cached, else asked through the session. A number the network
   * could not place is missing from the map. Throws NetworkError when the network must be asked
   * and cannot be (session not connected, no answer).
   */
  async check(workspaceId: string, sessionId: string, phones: string[]): Promise<Map<string, boolean>> {
    const unique = [...new Set(phones)];
    const read = this.cached(workspaceId, unique);
    this.reading.add(read);
    let known: Map<string, boolean>;
    try {
      known = await read;
    } finally {
      this.reading.delete(read);
    }
    const missing = unique.filter((p) => !known.has(p));
    if (!missing.length || !this.supported) return known;
    const waits: Promise<Map<string, boolean>>[] = [];
    const mine: string[] = [];
    for (const p of missing) {
      const flying = this.inflight.get(`${workspaceId}:${p}`);
      if (flying) waits.push(flying);
      else mine.push(p);
    }
    if (mine.length) waits.push(this.enqueue(workspaceId, sessionId, mine));
    for (const answers of await Promise.all(waits)) for (const [p, on] of answers) if (unique.includes(p)) known.set(p, on);
    return known;
  }

  /** One number: true, false, or undefined when the network could not place it. */
  async isOnNetwork(workspaceId: string, sessionId: string, phone: string): Promise<boolean | undefined> {
    // the common case on SQLite, a number answered before: one synchronous read, none of the batching's machinery
    const known = freshCheckNow(this.deps.db, workspaceId, phone, this.deps.clock.now().getTime());
    if (known !== undefined && known !== null) return known;
    return (await this.check(workspaceId, sessionId, [phone])).get(phone);
  }

  private enqueue(workspaceId: string, sessionId: string, phones: string[]): Promise<Map<string, boolean>> {
    const key = `${workspaceId}:${sessionId}`;
    let p = this.pending.get(key);
    if (!p) {
      let resolve!: Pending["resolve"];
      let reject!: Pending["reject"];
      const done = new Promise<Map<string, boolean>>((res, rej) => ((resolve = res), (reject = rej)));
      done.catch(() => {}); // every caller awaits it; an unobserved copy must not be reported
      p = { workspaceId, sessionId, phones: new Set(), done, resolve, reject };
      this.pending.set(key, p);
      // the rest of this turn's questions join the batch
      setImmediate(() => void this.flush(key));
    }
    for (const phone of phones) {
      p.phones.add(phone);
      this.inflight.set(`${workspaceId}:${phone}`, p.done);
    }
    return p.done;
  }

  private async flush(key: string): Promise<void> {
    // callers that asked in the same turn may still be reading the cache (a database round trip)
    await Promise.allSettled([...this.reading]);
    const p = this.pending.get(key);
    if (!p) return;
    this.pending.delete(key);
    const phones = [...p.phones];
    const answers = new Map<string, boolean>();
    try {
      for (let i = 0; i < phones.length; i += CHECK_BATCH) {
        const chunk = phones.slice(i, i + CHECK_BATCH);
        const got: NumberCheck[] = await this.deps.network.checkNumbers!(p.sessionId, chunk);
        const valid = got.filter((c) => chunk.includes(c.phone));
        await saveChecks(this.deps.db, p.workspaceId, valid, this.deps.clock.now().getTime(), CHECK_TTL_MS);
        for (const c of valid) answers.set(c.phone, c.onNetwork);
      }
      p.resolve(answers);
    } catch (err) {
      p.reject(err instanceof NetworkError ? err : new NetworkError(`number check failed: ${(err as Error).message}`, true, "check_failed"));
    } finally {
      for (const phone of phones) {
        const k = `${p.workspaceId}:${phone}`;
        if (this.inflight.get(k) === p.done) this.inflight.delete(k);
      }
    }
  }
}
