import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useLocation } from "wouter";
import { get, post } from "../api/client.ts";
import type { Campaign, Contact, Segment, Session } from "../api/types.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Field, Select, TextArea } from "../ui/Field.tsx";
import { emptyFilter, FilterEditor, toFilter, usePreview, type FilterText } from "../ui/FilterEditor.tsx";
import { fieldError } from "../ui/errors.tsx";
import { fmtPhone, useAction } from "../ui/hooks.ts";
import { typeOf, upload } from "../ui/download.ts";
import { defaultPacing, PacingFields, toPacing, type PacingText } from "../ui/PacingFields.tsx";
import { attributeKeysOf, attributeOf, renderTemplate } from "./Campaigns.tsx";

/** A new campaign (draft): sessions, audience, message with a live preview, pacing, schedule. */
export function CampaignNew() {
  const [, navigate] = useLocation();
  const sessions = useQuery({ queryKey: ["sessions"], queryFn: () => get<Session[]>("/api/v1/chatapp?limit=100") });
  const segments = useQuery({ queryKey: ["segments"], queryFn: () => get<Segment[]>("/api/v1/segments?limit=100") });
  const [name, setName] = useState("");
  const [sessionIds, setSessionIds] = useState<string[]>([]);
  const [mode, setMode] = useState<"segment" | "filter">("filter");
  const [segmentId, setSegmentId] = useState("");
  const [filter, setFilter] = useState<FilterText>(emptyFilter);
  const [body, setBody] = useState("Hello {{name|friend}}!");
  const [pacing, setPacing] = useState<PacingText>(defaultPacing);
  const [file, setFile] = useState<File | null>(null);
  const [at, setAt] = useState("");
  const [sampleIdx, setSampleIdx] = useState(0);

  const segFilter = segments.data?.find((s) => s.id === segmentId)?.filter ?? {};
  const preview = usePreview(mode === "segment" ? segFilter : toFilter(filter));
  const sample: Contact | null = preview.data?.sample[sampleIdx] ?? preview.data?.sample[0] ?? null;
  // sample contacts a {{attributes.KEY}} finds nothing for: they would get the default
  const samples = preview.data?.sample ?? [];
  const missing = attributeKeysOf(body)
    .map((key) => ({ key, who: samples.filter((c) => !attributeOf(c.attributes, key)?.trim()) }))
    .filter((m) => m.who.length > 0);

  const create = useAction(
    async () => {
      let message: Record<string, unknown> = { type: "text", body };
      if (file) {
        const media = await upload(file);
        message = { type: typeOf(media.mimeType), mediaId: media.id, filename: file.name, body: body || undefined };
      }
      return post<Campaign>("/api/v1/campaigns", {
        name,
        sessionIds,
        message,
        audience: mode === "segment" ? { segmentId } : { filter: toFilter(filter) },
        schedule: at ? { at: new Date(at).toISOString() } : null,
        pacing: toPacing(pacing),
      });
    },
    [["campaigns"]],
    (c) => navigate(`/campaigns/${c.id}`),
  );
  const toggle = (id: string) => setSessionIds((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
  const sessErr = fieldError(create.error, "sessionIds");

  return (
    <section>
      <h1>New campaign</h1>
      <form onSubmit={(e: FormEvent) => (e.preventDefault(), create.mutate())} noValidate>
        <Field label="Campaign name" name="name" required value={name} onChange={(e) => setName(e.target.value)} error={create.error} />
        <fieldset className={sessErr ? "invalid" : undefined}>
          <legend>Send from these sessions</legend>
          {sessions.data?.map((s) => (
            <div className="check" key={s.id}>
              <input id={`sess-${s.id}`} type="checkbox" checked={sessionIds.includes(s.id)} onChange={() => toggle(s.id)} />
              <label htmlFor={`sess-${s.id}`}>
                {s.name} ({s.status === "connected" ? fmtPhone(s.phoneNumber) : s.status})
              </label>
            </div>
          ))}
          {sessErr && <small className="field-error">Sessions: {sessErr}</small>}
        </fieldset>
        <Select label="Audience" name="audienceMode" value={mode} onChange={(e) => setMode(e.target.value as "segment" | "filter")}>
          <option value="filter">Contacts matching a filter</option>
          <option value="segment">A saved segment</option>
        </Select>
        {mode === "segment" ? (
          <Select label="Segment" name="audience.segmentId" value={segmentId} onChange={(e) => setSegmentId(e.target.value)} error={create.error}>
            <option value="">Choose…</option>
            {segments.data?.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name} ({s.count})
              </option>
            ))}
          </Select>
        ) : (
          <FilterEditor value={filter} onChange={setFilter} error={create.error} prefix="audience.filter" />
        )}
        {mode === "segment" && <p role="status">{preview.data ? `${preview.data.count} opted-in contacts` : ""}</p>}
        <TextArea
          label="Message"
          name="message.body"
          rows={4}
          required
          hint="Variables: {{name}}, {{phone}}, {{attributes.KEY}}; a default after a pipe: {{name|friend}}"
          value={body}
          onChange={(e) => setBody(e.target.value)}
          error={create.error}
        />
        <section className="preview" aria-label="Message preview">
          <h2>Preview</h2>
          {preview.data && preview.data.sample.length > 1 && (
            <Select label="Sample contact" name="sample" value={String(sampleIdx)} onChange={(e) => setSampleIdx(Number(e.target.value))}>
              {preview.data.sample.map((c, i) => (
                <option key={c.id} value={i}>
                  {c.name ?? c.pushName ?? fmtPhone(c.phone)}
                </option>
              ))}
            </Select>
          )}
          <p className="muted">{sample ? `As ${sample.name ?? sample.pushName ?? fmtPhone(sample.phone)} would read it:` : "No matching contact yet; defaults shown:"}</p>
          <p className="bubble" data-testid="campaign-preview">
            {renderTemplate(body, sample)}
          </p>
          {missing.map((m) => (
            <p key={m.key} className="note warn" data-testid="missing-attribute">
              {m.who.length} of the {samples.length} sample contacts {m.who.length === 1 ? "has" : "have"} no “{m.key}” attribute (
              {m.who
                .slice(0, 3)
                .map((c) => c.name ?? c.pushName ?? fmtPhone(c.phone))
                .join(", ")}
              {m.who.length > 3 ? ", …" : ""}): they get the default after the pipe, or nothing.
            </p>
          ))}
        </section>
        <Field label="Attachment (optional; the message becomes its caption)" name="message.mediaId" type="file" onChange={(e) => setFile(e.target.files?.[0] ?? null)} error={create.error} />
        {pacing.warmup && (
          <p className="note" data-testid="warmup-note">
            New numbers warm up: each number sends at most 50 campaign messages a day on its first two days after it was first connected, 200 on days 3 to 5 and 500 on
            days 6 to 10, then up to the daily cap. A larger campaign keeps running and goes on the next day (UTC); the campaign says when it waits for this.
          </p>
        )}
        <PacingFields value={pacing} onChange={setPacing} error={create.error} />
        <Field label="Start at (leave empty to start by hand)" name="schedule.at" type="datetime-local" value={at} onChange={(e) => setAt(e.target.value)} error={create.error} />
        <ErrorNote error={create.error} />
        <button type="submit" disabled={create.isPending}>
          Create draft
        </button>
      </form>
    </section>
  );
}
