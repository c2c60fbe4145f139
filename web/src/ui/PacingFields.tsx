import { Field } from "./Field.tsx";

export interface PacingText {
  perMinute: string;
  jitterPercent: string;
  dailyCapPerSession: string;
  warmup: boolean;
  quietStart: string;
  quietEnd: string;
  timezone: string;
}

export const defaultPacing = (): PacingText => ({
  perMinute: "20",
  jitterPercent: "30",
  dailyCapPerSession: "1000",
  warmup: true,
  quietStart: "",
  quietEnd: "",
  timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
});

/** A campaign's pacing object from the form (quiet hours only when both times are given). */
export function toPacing(p: PacingText) {
  return {
    perMinute: Number(p.perMinute),
    jitterPercent: Number(p.jitterPercent),
    dailyCapPerSession: Number(p.dailyCapPerSession),
    warmup: p.warmup,
    quietHours: p.quietStart && p.quietEnd ? { start: p.quietStart, end: p.quietEnd, timezone: p.timezone } : null,
  };
}

/** Pacing of a campaign: rate, jitter, daily cap, warm-up, quiet hours (errors under `pacing.*`). */
export function PacingFields({ value, onChange, error }: { value: PacingText; onChange: (p: PacingText) => void; error: unknown }) {
  const set = (k: keyof PacingText) => (e: { target: { value: string } }) => onChange({ ...value, [k]: e.target.value });
  return (
    <details className="panel">
      <summary>Pacing and quiet hours</summary>
      <Field label="Messages a minute per session" name="pacing.perMinute" type="number" min={1} max={600} value={value.perMinute} onChange={set("perMinute")} error={error} />
      <Field label="Gap variation (%)" name="pacing.jitterPercent" type="number" min={0} max={100} value={value.jitterPercent} onChange={set("jitterPercent")} error={error} />
      <Field label="Most messages a day per session" name="pacing.dailyCapPerSession" type="number" min={1} value={value.dailyCapPerSession} onChange={set("dailyCapPerSession")} error={error} />
      <div className="check">
        <input id="warmup" type="checkbox" checked={value.warmup} onChange={(e) => onChange({ ...value, warmup: e.target.checked })} />
        <label htmlFor="warmup">Warm-up: fewer messages a day on new numbers (protects them from bans)</label>
      </div>
      <Field label="Quiet hours start" name="pacing.quietHours.start" type="time" value={value.quietStart} onChange={set("quietStart")} error={error} />
      <Field label="Quiet hours end" name="pacing.quietHours.end" type="time" value={value.quietEnd} onChange={set("quietEnd")} error={error} />
      <Field label="Quiet hours time zone" name="pacing.quietHours.timezone" value={value.timezone} onChange={set("timezone")} error={error} />
    </details>
  );
}
