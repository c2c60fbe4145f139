import { errors } from "../errors.ts";

const UNSAFE_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Parses a multipart body with a byte cap that holds without Content-Length too (chunked
 * uploads), so Bun's own body limit can stay out of the way and every 413 is ours.
 * Fields stay strings and files (a repeated field becomes an array): unlike Elysia's own
 * parser nothing is JSON-parsed, so a field cannot smuggle a deeply nested value.
 */
export async function parseMultipartCapped(request: Request, contentType: string, limit: number): Promise<Record<string, unknown>> {
  if (!request.body) return {};
  let size = 0;
  const capped = request.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.byteLength;
        if (size > limit) controller.error(errors.tooLarge(limit));
        else controller.enqueue(chunk);
      },
    }),
  );
  let form: FormData;
  try {
    form = await new Response(capped, { headers: { "content-type": contentType } }).formData();
  } catch {
    if (size > limit) throw errors.tooLarge(limit);
    throw errors.validation({ body: "is not valid multipart/form-data" }, "Malformed multipart body");
  }
  const body: Record<string, unknown> = {};
  for (const key of new Set(form.keys())) {
    if (UNSAFE_KEYS.has(key)) continue;
    const values = form.getAll(key);
    body[key] = values.length === 1 ? values[0] : values;
  }
  return body;
}
