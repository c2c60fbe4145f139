import { useState, type FormEvent } from "react";
import { Link, useLocation } from "wouter";
import { ApiError, post } from "../api/client.ts";
import { signedIn } from "../api/tokens.ts";
import { Captcha, captchaFields, type CaptchaValue } from "../ui/Captcha.tsx";
import { ErrorNote } from "../ui/errors.tsx";
import { Field } from "../ui/Field.tsx";
import { useAuth } from "../ui/hooks.ts";
import { resumeVerification } from "./Signup.tsx";
import { outboxNote, useServerFacts } from "../api/server-facts.ts";

interface Tokens {
  accessToken: string;
  refreshToken: string;
}
interface Challenge {
  requiresOtp: true;
  loginChallengeToken: string;
  phoneMasked: string | null;
  codeSent?: boolean;
  retryAfter?: number;
}

/** Log in, with the second factor when the account or workspace asks for it (docs/authentication.md). */
export function Login() {
  const { endedReason } = useAuth();
  const facts = useServerFacts();
  const [, navigate] = useLocation();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [captcha, setCaptcha] = useState<CaptchaValue>({ captchaAnswer: "" });
  const [round, setRound] = useState(0);
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [code, setCode] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const data = await post<Tokens | Challenge>("/api/auth/login", { email, password, ...captchaFields(captcha) });
      if ("requiresOtp" in data) {
        setChallenge(data);
        setNote(
          data.codeSent === false
            ? `A code was sent a moment ago. Ask for a new one in ${data.retryAfter ?? 60} seconds, or use the last one.`
            : `We sent a 6-digit code to ${data.phoneMasked ?? "your mobile"}.`,
        );
      } else signedIn(data.accessToken, data.refreshToken);
    } catch (err) {
      const resume = err instanceof ApiError ? (err.data as { requiresVerification?: boolean; registrationToken?: string; nextStep?: string } | null) : null;
      if (resume?.requiresVerification && resume.registrationToken) {
        resumeVerification({ registrationToken: resume.registrationToken, nextStep: resume.nextStep ?? "mobile", email, password });
        navigate("/signup");
        return;
      }
      setError(err);
      setRound((r) => r + 1);
    } finally {
      setBusy(false);
    }
  };

  const verify = async (e: FormEvent) => {
    e.preventDefault();
    if (!challenge) return;
    setBusy(true);
    setError(null);
    try {
      const t = await post<Tokens>("/api/auth/login/verify-otp", { loginChallengeToken: challenge.loginChallengeToken, otpCode: code });
      signedIn(t.accessToken, t.refreshToken);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const resend = async () => {
    if (!challenge) return;
    setError(null);
    try {
      await post("/api/auth/login/send-otp", { loginChallengeToken: challenge.loginChallengeToken });
      setNote("A new code is on its way.");
    } catch (err) {
      setError(err);
    }
  };

  return (
    <main className="auth">
      <h1>Sign in to Parley</h1>
      {endedReason && !challenge && <p className="note" role="status">{endedReason}</p>}
      {facts.data?.needsSetup && !challenge && (
        <p className="note" data-testid="needs-setup">
          This server has no workspace yet. Open the one-time setup link from the server's start log (it begins with /app/setup?token=) to create yours; a restart prints a new
          one.
        </p>
      )}
      {!challenge ? (
        <form onSubmit={submit} noValidate>
          <Field label="Email" name="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} error={error} />
          <Field label="Password" name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} error={error} />
          {facts.data?.captcha === true && <Captcha round={round} value={captcha} onChange={setCaptcha} error={error} />}
          <ErrorNote error={error} />
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </form>
      ) : (
        <form onSubmit={verify} noValidate>
          <p role="status">{note}</p>
          {outboxNote(facts.data, "mobile") && <p className="note">{outboxNote(facts.data, "mobile")}</p>}
          <Field label="Code from your phone" name="otpCode" inputMode="numeric" autoComplete="one-time-code" maxLength={6} required value={code} onChange={(e) => setCode(e.target.value)} error={error} />
          <ErrorNote error={error} />
          <button type="submit" disabled={busy}>
            Verify and sign in
          </button>
          <button type="button" className="secondary" onClick={() => void resend()}>
            Send a new code
          </button>
        </form>
      )}
      <p className="links">
        <Link href="/signup">Create a workspace</Link> · <Link href="/forgot">Forgot your password?</Link>
      </p>
    </main>
  );
}
