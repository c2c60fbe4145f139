import type { WASocket } from "baileys";

/**
 * Watches one socket: when it is open (`isOpen()`) and has received no frame (not even the
 * answers to baileys' keepalive pings) for `limitMs`, calls `onSilent` once with how long it
 * was silent. While linking the QR codes rotate locally and the network may stay quiet for
 * minutes, so a socket that is not open is never judged (connectTimeoutMs covers a handshake
 * that never ends). Returns the stop function.
 */
export function watchSocket(sock: Pick<WASocket, "ws">, limitMs: number, isOpen: () => boolean, onSilent: (silentMs: number) => void): () => void {
  let lastFrameAt = Date.now();
  (sock.ws as unknown as { on(event: string, l: () => void): void }).on("message", () => {
    lastFrameAt = Date.now();
  });
  const timer = setInterval(
    () => {
      if (!isOpen()) {
        lastFrameAt = Date.now();
        return;
      }
      const silent = Date.now() - lastFrameAt;
      if (silent < limitMs) return;
      clearInterval(timer);
      onSilent(silent);
    },
    Math.max(10, Math.min(5_000, Math.floor(limitMs / 4))),
  );
  return () => clearInterval(timer);
}
