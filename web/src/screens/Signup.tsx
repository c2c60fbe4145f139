import { useEffect, useRef, useState, type FormEvent } from "react";
import { Link, useLocation } from "wouter";
import { api, ApiError, post } from "../api/client.ts";
import { signedOut } from "../api/tokens.ts";
import { Captcha, captchaFields, type CaptchaValue } from "../ui/Captcha.tsx";
import { ErrorNote } from "../ui/errors.tsx";
import { Field } from "../ui/Field.tsx";
import { outboxNote, useServerFacts } from "../api/server-facts.ts";

interface Pending {
  registrationToken: string;
  nextStep: string;
  email?: string;
  password?: string;
}
// handed over by the log-in screen when an account's verification is unfinished (docs/authentication.md)
let resumed: Pending | null = null;
export function resumeVerification(p: Pending) {
  resumed = p;
}

/** Sign up: the workspace form with its captcha, then the mobile code, then the email code. */
export function Signup() {
  const [pending, setPending] = useState<Pending | null>(() => {
    const r = resumed;
    resumed = null;
    return r;
  });
  const [form, setForm] = useState({ name: "", email: "", password: "", confirmPassword: "", tenantName: "", mobile: "" });
  const [captcha, setCaptcha] = useState<CaptchaValue>({ captchaAnswer: "" });
  const [round, setRound] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const facts = useServerFacts();

  const register = async (e: FormEvent) => {
    e.preventDefault();
    // a mismatch is said at once, before the captcha is spent on it
    if (form.password !== form.confirmPassword) {
      setError(new ApiError(400, "VALIDATION_ERROR", "Check the marked fields", { confirmPassword: "must equal the password" }));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const d = await post<{ registrationToken: string; nextStep: string }>("/api/auth/register", { ...form, ...captchaFields(captcha) });
      setPending({ registrationToken: d.registrationToken, nextStep: d.nextStep });
    } catch (err) {
      setError(err);
      setRound((r) => r + 1);
    } finally {
      setBusy(false);
    }
  };

  if (pending) return <Verify pending={pending} onStep={(nextStep) => setPending({ ...pending, nextStep })} />;
  return (
    <main className="auth">
      <h1>Create your workspace</h1>
      <p>Your 14-day trial starts now. We will check your mobile number and then your email.</p>
      <form onSubmit={register} noValidate>
        <Field label="Your name" name="name" autoComplete="name" required value={form.name} onChange={set("name")} error={error} />
        <Field label="Business name" name="tenantName" autoComplete="organization" required value={form.tenantName} onChange={set("tenantName")} error={error} />
        <Field label="Email" name="email" type="email" autoComplete="email" required value={form.email} onChange={set("email")} error={error} />
        <Field
          label="Mobile number"
          name="mobile"
          type="tel"
          autoComplete="tel"
          hint="With the country code, e.g. 919876543210"
          required
          value={form.mobile}
          onChange={set("mobile")}
          error={error}
        />
        <Field label="Password" name="password" type="password" autoComplete="new-password" hint="8 to 128 characters" required value={form.password} onChange={set("password")} error={error} />
        <Field label="Password again" name="confirmPassword" type="password" autoComplete="new-password" required value={form.confirmPassword} onChange={set("confirmPassword")} error={error} />
        {facts.data?.captcha === true && <Captcha round={round} value={captcha} onChange={setCaptcha} error={error} />}
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          Create workspace
        </button>
      </form>
      <p className="links">
        Already have an account? <Link href="/login">Sign in</Link>
      </p>
    </main>
  );
}

function Verify({ pending, onStep }: { pending: Pending; onStep: (s: string) => void }) {
  const [, navigate] = useLocation();
  const [code, setCode] = useState("");
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const auto = useRef<string | null>(null);
  const step = pending.nextStep;
  const facts = useServerFacts();
  const headers = { authorization: `Bearer ${pending.registrationToken}` };

  const send = async () => {
    setError(null);
    try {
      const path = step === "mobile" ? "/api/auth/mobile/send-otp" : "/api/auth/email/send-verification-code";
      const r = await api<{ phoneMasked?: string; emailMasked?: string }>("POST", path, {}, headers);
      setSentTo(r.data.phoneMasked ?? r.data.emailMasked ?? null);
    } catch (err) {
      setError(err);
    }
  };

  // the first code of each step is sent without a click
  useEffect(() => {
    if (step !== "done" && auto.current !== step) {
      auto.current = step;
      setCode("");
      setSentTo(null);
      void send();
    }
  });

  const verify = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const path = step === "mobile" ? "/api/auth/mobile/verify-otp" : "/api/auth/email/verify";
      const body = step === "mobile" ? { otpCode: code } : { code };
      const r = await api<{ nextStep: string }>("POST", path, body, headers);
      onStep(r.data.nextStep);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (step === "done")
    return (
      <main className="auth">
        <h1>You are all set</h1>
        <p role="status">Your mobile number and email are verified.</p>
        <button
          type="button"
          onClick={() => {
            signedOut("Your account is ready. Sign in.");
            navigate("/login");
          }}
        >
          Sign in
        </button>
      </main>
    );
  const what = step === "mobile" ? "mobile number" : "email";
  return (
    <main className="auth">
      <h1>Verify your {what}</h1>
      <p className="steps">Step {step === "mobile" ? 1 : 2} of 2</p>
      <p role="status">{sentTo ? `We sent a 6-digit code to ${sentTo}.` : "Sending a code…"}</p>
      {outboxNote(facts.data, step === "mobile" ? "mobile" : "email") && <p className="note">{outboxNote(facts.data, step === "mobile" ? "mobile" : "email")}</p>}
      <form onSubmit={verify} noValidate>
        <Field
          label={`Code sent to your ${what}`}
          name={step === "mobile" ? "otpCode" : "code"}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          required
          value={code}
          onChange={(e) => setCode(e.target.value)}
          error={error}
        />
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          Verify
        </button>
        <button type="button" className="secondary" onClick={() => void send()}>
          Send a new code
        </button>
      </form>
    </main>
  );
}
