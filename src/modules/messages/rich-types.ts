import { MEDIA_CAPS, type MediaKind } from "../media/model.ts";

/** Whether a stored message type carries a media file. */
export function isMediaKind(type: string): type is MediaKind {
  return Object.hasOwn(MEDIA_CAPS, type);
}

/** The structured content of a reaction, location or contact message (stored as JSON), or null. */
export function parsePayload(payload: string | null): Record<string, unknown> | null {
  if (!payload) return null;
  try {
    return JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return null;
  }
}
