import { ApiError, request } from "../api/client.ts";

/** Downloads an authenticated resource (the token is a header, so a plain link cannot). */
export async function download(path: string, filename: string) {
  const res = await request("GET", path);
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { code?: string; message?: string } | null;
    throw new ApiError(res.status, body?.code ?? "INTERNAL_ERROR", body?.message ?? `The server answered ${res.status}`);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** POST /api/v1/media: the upload's id for a send or a campaign. */
export async function upload(file: File): Promise<{ id: string; mimeType: string }> {
  const fd = new FormData();
  fd.append("file", file);
  const { api } = await import("../api/client.ts");
  return (await api<{ id: string; mimeType: string }>("POST", "/api/v1/media", fd)).data;
}

/** The message type a send (docs/messages.md) expects for a MIME type. */
export function typeOf(mime: string): "image" | "audio" | "video" | "document" {
  if (mime.startsWith("image/")) return "image";
  if (mime.startsWith("audio/")) return "audio";
  if (mime.startsWith("video/")) return "video";
  return "document";
}
