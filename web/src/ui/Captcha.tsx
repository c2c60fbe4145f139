import { useQuery } from "@tanstack/react-query";
import { get } from "../api/client.ts";
import { Field } from "./Field.tsx";

export interface CaptchaValue {
  captchaId?: string;
  captchaAnswer: string;
}

/**
 * The sign-up and log-in captcha (D3): a PNG data URI, one-time. Every submit consumes it, so
 * the parent bumps `round` after each attempt to get a new one.
 */
export function Captcha({ round, value, onChange, error }: { round: number; value: CaptchaValue; onChange: (v: CaptchaValue) => void; error: unknown }) {
  const q = useQuery({
    queryKey: ["captcha", round],
    queryFn: async () => {
      const c = await get<{ captchaId: string; challenge: string }>("/api/auth/captcha");
      onChange({ captchaId: c.captchaId, captchaAnswer: "" });
      return c;
    },
    staleTime: 240_000,
    gcTime: 0,
  });
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
