import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { post } from "../api/client.ts";
import type { Contact, SegmentFilter } from "../api/types.ts";
import { parsePairs, splitTags } from "./text.ts";
import { ErrorNote } from "./errors.tsx";
import { Field, TextArea } from "./Field.tsx";

export interface FilterText {
  tagsAny: string;
  tagsAll: string;
  tagsNone: string;
  lastInboundWithinDays: string;
  createdWithinDays: string;
  /** one key=value a line */
  attributes: string;
}
export const emptyFilter: FilterText = { tagsAny: "", tagsAll: "", tagsNone: "", lastInboundWithinDays: "", createdWithinDays: "", attributes: "" };


/** The form's text as a segment filter object (empty parts left out). */
export function toFilter(f: FilterText): SegmentFilter {
  const out: SegmentFilter = {};
  for (const k of ["tagsAny", "tagsAll", "tagsNone"] as const) if (splitTags(f[k]).length) out[k] = splitTags(f[k]);
  for (const k of ["lastInboundWithinDays", "createdWithinDays"] as const) if (f[k].trim()) out[k] = Number(f[k]);
  const attributes = parsePairs(f.attributes);
  if (Object.keys(attributes).length) out.attributes = attributes;
  return out;
}

export function fromFilter(f: SegmentFilter): FilterText {
  return {
    tagsAny: f.tagsAny?.join(", ") ?? "",
    tagsAll: f.tagsAll?.join(", ") ?? "",
    tagsNone: f.tagsNone?.join(", ") ?? "",
    lastInboundWithinDays: f.lastInboundWithinDays?.toString() ?? "",
    createdWithinDays: f.createdWithinDays?.toString() ?? "",
    attributes: Object.entries(f.attributes ?? {}).map(([k, v]) => `${k}=${v}`).join("\n"),
  };
}

function useDebounced<T>(v: T, ms: number): T {
  const [d, setD] = useState(v);
  useEffect(() => {
    const t = setTimeout(() => setD(v), ms);
    return () => clearTimeout(t);
  }, [v, ms]);
  return d;
}

/** The live count of a filter: POST /api/v1/segments/preview as the filter changes. */
export function usePreview(filter: SegmentFilter) {
  const key = useDebounced(JSON.stringify(filter), 300);
  return useQuery({
    queryKey: ["segment-preview", key],
    queryFn: () => post<{ count: number; sample: Contact[] }>("/api/v1/segments/preview", { filter: JSON.parse(key) }),
    placeholderData: (prev) => prev,
  });
}

/** Editing a segment filter, with field errors under `filter.*` (or `prefix.*`). */
export function FilterEditor({ value, onChange, error, prefix = "filter" }: { value: FilterText; onChange: (f: FilterText) => void; error?: unknown; prefix?: string }) {
  const preview = usePreview(toFilter(value));
  const set = (k: keyof FilterText) => (e: { target: { value: string } }) => onChange({ ...value, [k]: e.target.value });
  return (
    <fieldset>
      <legend>Who is in it</legend>
      <Field label="Has any of these tags" name={`${prefix}.tagsAny`} value={value.tagsAny} onChange={set("tagsAny")} error={error} />
      <Field label="Has all of these tags" name={`${prefix}.tagsAll`} value={value.tagsAll} onChange={set("tagsAll")} error={error} />
      <Field label="Has none of these tags" name={`${prefix}.tagsNone`} value={value.tagsNone} onChange={set("tagsNone")} error={error} />
      <Field label="Wrote to us within (days)" name={`${prefix}.lastInboundWithinDays`} type="number" min={1} value={value.lastInboundWithinDays} onChange={set("lastInboundWithinDays")} error={error} />
      <Field label="Added within (days)" name={`${prefix}.createdWithinDays`} type="number" min={1} value={value.createdWithinDays} onChange={set("createdWithinDays")} error={error} />
      <TextArea label="Attributes equal to (key=value, one a line)" name={`${prefix}.attributes`} rows={2} value={value.attributes} onChange={set("attributes")} error={error} />
      <p role="status" aria-live="polite" className="count">
        {preview.data ? `${preview.data.count} opted-in contacts match now` : "Counting…"}
      </p>
      <ErrorNote error={preview.error} />
    </fieldset>
  );
}
