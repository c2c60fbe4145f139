import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from "react";
import { fieldError } from "./errors.tsx";

interface Common {
  label: string;
  /** the API's field path whose error is shown under this control */
  name: string;
  error?: unknown;
  hint?: ReactNode;
}

function Frame({ id, label, msg, hint, children }: { id: string; label: string; msg?: string; hint?: ReactNode; children: ReactNode }) {
  return (
    <div className={msg ? "field invalid" : "field"}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && <small id={`${id}-hint`}>{hint}</small>}
      {msg && (
        <small className="field-error" id={`${id}-error`}>
          {label}: {msg}
        </small>
      )}
    </div>
  );
}

function describedBy(id: string, msg?: string, hint?: ReactNode) {
  return [msg ? `${id}-error` : "", hint ? `${id}-hint` : ""].filter(Boolean).join(" ") || undefined;
}

/** A labelled input with the API's error for `name` beside it. */
export function Field({ label, name, error, hint, ...rest }: Common & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const msg = fieldError(error, name);
  return (
    <Frame id={id} label={label} msg={msg} hint={hint}>
      <input id={id} name={name} aria-invalid={msg ? true : undefined} aria-describedby={describedBy(id, msg, hint)} {...rest} />
    </Frame>
  );
}

export function TextArea({ label, name, error, hint, ...rest }: Common & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = useId();
  const msg = fieldError(error, name);
  return (
    <Frame id={id} label={label} msg={msg} hint={hint}>
      <textarea id={id} name={name} aria-invalid={msg ? true : undefined} aria-describedby={describedBy(id, msg, hint)} {...rest} />
    </Frame>
  );
}

export function Select({ label, name, error, hint, children, ...rest }: Common & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  const msg = fieldError(error, name);
  return (
    <Frame id={id} label={label} msg={msg} hint={hint}>
      <select id={id} name={name} aria-invalid={msg ? true : undefined} aria-describedby={describedBy(id, msg, hint)} {...rest}>
        {children}
      </select>
    </Frame>
  );
}

/** A progress bar with a visible text of the same numbers. */
export function Progress({ label, value, max }: { label: string; value: number; max: number }) {
  const pct = max > 0 ? Math.round((value / max) * 100) : 0;
  return (
    <div className="progress">
      <progress value={value} max={Math.max(max, 1)} aria-label={label} />
      <span>
        {value} / {max} ({pct} %)
      </span>
    </div>
  );
}
