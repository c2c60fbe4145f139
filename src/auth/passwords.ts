import { Semaphore } from "./semaphore.ts";

/**
 * argon2id at the OWASP floor (19 MiB, 2 passes): about 30 ms on one core. Raising it makes
 * every login dearer for the server as well as for an attacker holding the database.
 */
const PARAMS = { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 } as const;

/** Hashes and verifies passwords with argon2id, at most `concurrency` at once. */
export class PasswordHasher {
  private slots: Semaphore;
  private dummy: Promise<string> | null = null;
  private counts = { hashes: 0, verifications: 0 };

  constructor(concurrency: number) {
    this.slots = new Semaphore(concurrency);
  }

  /** An argon2id hash (PHC string) of the password. */
  hash(password: string): Promise<string> {
    this.counts.hashes++;
    return this.slots.run(() => Bun.password.hash(password, PARAMS));
  }

  /**
   * Checks a password against a stored hash. Without a hash (unknown email) it verifies against
   * a dummy hash of the same cost and answers false, so both cases take about as long.
   */
  async verify(password: string, hash: string | null | undefined): Promise<boolean> {
    const target = hash ?? (await this.dummyHash());
    this.counts.verifications++;
    const ok = await this.slots.run(() => Bun.password.verify(password, target).catch(() => false));
    return ok && hash != null;
  }

  /** Work done so far and the queue now: an operator metric, and how tests see the dummy check ran. */
  stats(): { hashes: number; verifications: number; active: number; waiting: number } {
    return { ...this.counts, ...this.slots.load };
  }

  private dummyHash(): Promise<string> {
    this.dummy ??= Bun.password.hash(crypto.randomUUID(), PARAMS);
    return this.dummy;
  }
}
