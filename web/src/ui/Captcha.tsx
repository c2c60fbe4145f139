import { useQuery } from "@tanstack/react-query";
import { useEffect, useState, type Dispatch, type SetStateAction } from "react";
import { get } from "../api/client.ts";
import { Field } from "./Field.tsx";

export interface CaptchaValue {
  captchaId?: string;
  captchaAnswer: string;
}

/**
 * The sign-up and log-in captcha (docs/authentication.md): a PNG data URI, one-time. Every submit consumes it, so
 * the parent bumps `round` after each attempt to get a new one.
 */
export function Captcha({ round, value, onChange, error }: { round: number; value: CaptchaValue; onChange: Dispatch<SetStateAction<CaptchaValue>>; error: unknown }) {
  // one-time challenges: a fresh one for every form shown, and after every attempt
  const [mount] = useState(() => crypto.randomUUID());
  const q = useQuery({
    queryKey: ["captcha", mount, round],
    queryFn: () => get<{ captchaId: string; challenge: string }>("/api/auth/captcha"),
    staleTime: 240_000,
  });
  const id = q.data?.captchaId;
  // a new picture: a new id, and whatever was typed for the old one goes
  useEffect(() => {
    if (id) onChange({ captchaId: id, captchaAnswer: "" });
  }, [id, onChange]);
  return (
    <fieldset className="captcha">
      <legend>Prove you are a person</legend>
      {q.data ? <img src={q.data.challenge} alt="Captcha: five letters and digits to type below" width={180} height={64} /> : <p>Loading the captcha…</p>}
      <button type="button" className="secondary small" onClick={() => void q.refetch()}>
        New captcha
      </button>
      <Field
        label="Characters in the picture"
        name="captchaAnswer"
        error={error}
        autoComplete="off"
        autoCapitalize="characters"
        value={value.captchaAnswer}
        onChange={(e) => onChange({ ...value, captchaAnswer: e.target.value })}
      />
    </fieldset>
  );
}

/** The captcha fields of a request body; an empty answer is left out (the operator may have captcha off). */
export function captchaFields(v: CaptchaValue): Partial<CaptchaValue> {
  return v.captchaAnswer.trim() ? { captchaId: v.captchaId, captchaAnswer: v.captchaAnswer.trim() } : v.captchaId ? { captchaId: v.captchaId } : {};
}
