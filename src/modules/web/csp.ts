// A host header is echoed into the policy only when it is a plain host[:port] (no injection)
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The dashboard's Content-Security-Policy: everything from this origin only, no inline script
 * or style, images also as data: URIs (QR codes, captcha), the WebSocket on the same host.
 */
export function dashboardCsp(host: string | null): string {
  const ws = host && HOST.test(host) ? ` ws://${host} wss://${host}` : "";
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    `connect-src 'self'${ws}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Headers of every dashboard HTML answer. */
export function pageHeaders(host: string | null): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": dashboardCsp(host),
    "cache-control": "no-cache",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
  };
}
