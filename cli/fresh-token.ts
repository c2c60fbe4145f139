/**
 * An access token minted again once it gets old. The server refuses access tokens issued more
 * than 15 minutes ago whatever their expiry says, so a command that runs for long (a pairing
 * that waits for a scan, then cleans up) asks for its token right before each call.
 */
export class FreshToken {
  private current: { token: Promise<string>; mintedAt: number } | null = null;

  constructor(
    private mint: () => Promise<string>,
    /** a token older than this is replaced before use */
    private maxAgeMs: number,
    private now: () => number = Date.now,
  ) {}

  /** A token at most `maxAgeMs` old (calls at the same moment share one mint). */
  get(): Promise<string> {
    const now = this.now();
    if (!this.current || now - this.current.mintedAt >= this.maxAgeMs) {
      const token = this.mint();
      this.current = { token, mintedAt: now };
      // a failed mint is not kept: the next call tries again
      token.catch(() => {
        if (this.current?.token === token) this.current = null;
      });
    }
    return this.current.token;
  }
}
