/** The client's IP: the socket's, or the last X-Forwarded-For hop when the operator trusts a proxy. */
export function clientIp(
  request: Request,
  server: { requestIP(r: Request): { address: string } | null } | null | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    // The trusted proxy appends the address it saw; everything left of it came from the client
    // and can be anything, so only the rightmost entry identifies the client.
    const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  return server?.requestIP(request)?.address ?? "local";
}
