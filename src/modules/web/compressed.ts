import { nodeZlib } from "../../node/lazy.ts";

export type Encoding = "br" | "gzip";

/** The encoding to send for an Accept-Encoding header: brotli, else gzip, else none (q=0 refuses one). */
export function pickEncoding(header: string | null): Encoding | null {
  if (!header) return null;
  const q = new Map<string, number>();
  for (const part of header.toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";");
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    q.set(name.trim(), qp ? Number(qp.slice(2)) || 0 : 1);
  }
  const wants = (e: string) => (q.get(e) ?? q.get("*") ?? 0) > 0;
  return wants("br") ? "br" : wants("gzip") ? "gzip" : null;
}

/**
 * One asset's bytes, and its gzip and brotli forms made once on first use (not per request):
 * the dashboard's script is ~330 KB as text and ~100 KB gzipped.
 */
export class CompressedAsset {
  private forms = new Map<Encoding, Promise<Uint8Array<ArrayBuffer>>>();
  /** strong validator of the content (the same for every encoding's bytes of it) */
  readonly etag: string;

  constructor(readonly text: string) {
    this.etag = `"${Bun.hash(text).toString(36)}"`;
  }

  /** The compressed bytes, made off the event loop (brotli at its best takes a while on 330 KB) once, then kept. */
  bytes(encoding: Encoding): Promise<Uint8Array<ArrayBuffer>> {
    let b = this.forms.get(encoding);
    if (!b) {
      const raw = Buffer.from(this.text);
      const z = nodeZlib();
      b = (
        encoding === "gzip"
          ? new Promise<Buffer>((res, rej) => z.gzip(raw, { level: 9 }, (err, out) => (err ? rej(err) : res(out))))
          : new Promise<Buffer>((res, rej) =>
              z.brotliCompress(raw, { params: { [z.constants.BROTLI_PARAM_QUALITY]: 11, [z.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }, (err, out) => (err ? rej(err) : res(out))),
            )
      ).then((out) => new Uint8Array(out));
      b.catch(() => this.forms.delete(encoding)); // a failure is not kept: the next request tries again
      this.forms.set(encoding, b);
    }
    return b;
  }

  /** The answer to a GET with these request headers: 304 for a matching If-None-Match, else the best encoding. */
  async respond(request: Request, headers: Record<string, string>): Promise<Response> {
    const h: Record<string, string> = { ...headers, etag: this.etag, vary: "Accept-Encoding" };
    const inm = request.headers.get("if-none-match");
    if (inm && inm.split(",").some((t) => t.trim().replace(/^W\//, "") === this.etag)) return new Response(null, { status: 304, headers: h });
    const enc = pickEncoding(request.headers.get("accept-encoding"));
    if (!enc) return new Response(this.text, { headers: h });
    return new Response(await this.bytes(enc), { headers: { ...h, "content-encoding": enc } });
  }
}
