import { useState, type FormEvent } from "react";
import { Link } from "wouter";
import { post } from "../api/client.ts";
import { outboxNote, useServerFacts } from "../api/server-facts.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Field } from "../ui/Field.tsx";

/** Forgot password: always the same answer, whether or not the address exists (docs/authentication.md). */
export function Forgot() {
  const [email, setEmail] = useState("");
  const [done, setDone] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const facts = useServerFacts();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await post("/api/auth/forgot-password", { email });
      setDone(true);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <main className="auth">
      <h1>Reset your password</h1>
      {done ? (
        <>
          <p role="status">If an account uses {email}, a link to set a new password is on its way. It works once, for 30 minutes.</p>
          {outboxNote(facts.data, "email", "link") && <p className="note">{outboxNote(facts.data, "email", "link")}</p>}
        </>
      ) : (
        <form onSubmit={submit} noValidate>
          <Field label="Email" name="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} error={error} />
          <ErrorNote error={error} />
          <button type="submit">Send the link</button>
        </form>
      )}
      <p className="links">
        <Link href="/login">Back to sign in</Link>
      </p>
    </main>
  );
}

/** Reset password from the mail's token (also served as /reset-password by the server). */
export function Reset() {
  const token = new URLSearchParams(location.search).get("token") ?? "";
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [done, setDone] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (password !== confirm) {
      setError(new Error("The two passwords differ."));
      return;
    }
    try {
      await post("/api/auth/reset-password", { token, password });
      setDone(true);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <main className="auth">
      <h1>Set a new password</h1>
      {!token && <p className="error">This link has no token. Open the link from your mail again.</p>}
      {done ? (
        <p role="status">
          Your password is changed. <Link href="/login">Sign in</Link>
        </p>
      ) : (
        <form onSubmit={submit} noValidate>
          <Field label="New password" name="password" type="password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)} error={error} />
          <Field label="New password again" name="confirm" type="password" autoComplete="new-password" required value={confirm} onChange={(e) => setConfirm(e.target.value)} error={error} />
          <ErrorNote error={error} />
          <button type="submit" disabled={!token}>
            Set password
          </button>
        </form>
      )}
    </main>
  );
}
