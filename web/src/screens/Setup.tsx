import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link } from "wouter";
import { ApiError, post } from "../api/client.ts";
import { useServerFacts } from "../api/server-facts.ts";
import { signedIn } from "../api/tokens.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Field } from "../ui/Field.tsx";

interface SetupResult {
  accessToken: string;
  refreshToken: string;
}

/**
 * The one-time setup link of a new server (printed in its start log): the first owner and the
 * workspace, no captcha and no codes, on the operator's unlimited plan. Signs in when done.
 */
export function Setup() {
  const token = new URLSearchParams(location.search).get("token") ?? "";
  const facts = useServerFacts(token);
  const qc = useQueryClient();
  const [form, setForm] = useState({ name: "", email: "", password: "", confirmPassword: "", tenantName: "" });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // said at once, with nothing sent
    if (form.password !== form.confirmPassword) {
      setError(new ApiError(400, "VALIDATION_ERROR", "Check the marked fields", { confirmPassword: "must equal the password" }));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const r = await post<SetupResult>("/api/setup", { ...form, token });
      void qc.invalidateQueries({ queryKey: ["server-facts"] });
      signedIn(r.accessToken, r.refreshToken);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (facts.isLoading) return <p className="boot">Loading…</p>;
  if (facts.data && !facts.data.tokenValid)
    return (
      <div className="auth">
        <h1>This setup link does not work</h1>
        <p>
          {facts.data.needsSetup
            ? "It was used already, or the server restarted since it was printed. The server's start log shows a new link on every start while there is no workspace."
            : "This server already has its workspace."}
        </p>
        <p className="links">
          <Link href="/login">Sign in</Link>
        </p>
      </div>
    );
  return (
    <div className="auth">
      <h1>Set up Parley</h1>
      <p>Create the owner account and your business's workspace. This link works once. There are no quotas and no billing on your own server.</p>
      <form onSubmit={submit} noValidate>
        <Field label="Your name" name="name" autoComplete="name" required value={form.name} onChange={set("name")} error={error} />
        <Field label="Business name" name="tenantName" autoComplete="organization" required value={form.tenantName} onChange={set("tenantName")} error={error} />
        <Field label="Email" name="email" type="email" autoComplete="email" hint="Your login" required value={form.email} onChange={set("email")} error={error} />
        <Field label="Password" name="password" type="password" autoComplete="new-password" hint="8 to 128 characters" required value={form.password} onChange={set("password")} error={error} />
        <Field label="Password again" name="confirmPassword" type="password" autoComplete="new-password" required value={form.confirmPassword} onChange={set("confirmPassword")} error={error} />
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          Create workspace
        </button>
      </form>
    </div>
  );
}
