import { z } from "zod";
import type { MessageType } from "../../network/driver.ts";
import { lazySchema } from "../../http/lazy-schema.ts";

const MiB = 1024 * 1024;

/** The network's own size caps per message type (docs/messages.md). */
export const MEDIA_CAPS: Record<Exclude<MessageType, "text">, number> = {
  image: 5 * MiB,
  audio: 16 * MiB,
  video: 16 * MiB,
  document: 100 * MiB,
};

export type MediaKind = keyof typeof MEDIA_CAPS;
export const MEDIA_KINDS = Object.keys(MEDIA_CAPS) as MediaKind[];

/** Whether a (sniffed) MIME type may be sent as a message type; documents take anything. */
export function mimeFitsKind(mimeType: string, kind: MediaKind): boolean {
  if (kind === "document") return true;
  return mimeType.startsWith(`${kind}/`);
}

/** A human size for error messages. */
export function formatBytes(n: number): string {
  return n >= MiB ? `${Math.round((n / MiB) * 10) / 10} MB` : `${n} bytes`;
}

export const mediaIdParams = lazySchema(() => z.object({ id: z.uuid() }));

export const uploadBody = lazySchema(() =>
  z.object({
    file: z.instanceof(File, { message: "is required (a file part)" }),
    /** the message type the file is meant for: its size cap and MIME check apply now */
    type: z.enum(MEDIA_KINDS as [MediaKind, ...MediaKind[]]).optional(),
  }),
);
export type UploadBody = z.infer<typeof uploadBody>;
