import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { get, post, put } from "../api/client.ts";
import { signedOut } from "../api/tokens.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Field } from "../ui/Field.tsx";
import { useAction } from "../ui/hooks.ts";

interface Profile {
  name: string;
  email: string;
  role: string;
  tenantName: string;
  twoFactorEnabled: boolean;
  mobileMasked: string | null;
  mobileVerified: boolean;
}

/** Profile: name, password, mobile number (with its code) and the second factor. */
export function Profile() {
  const p = useQuery({ queryKey: ["profile"], queryFn: () => get<Profile>("/api/auth/profile") });
  if (!p.data) return <section>{p.isLoading ? <p>Loading…</p> : <ErrorNote error={p.error} />}</section>;
  return (
    <section>
      <h1>Profile</h1>
      <p>
        {p.data.email} · {p.data.role} of {p.data.tenantName}
      </p>
      <Name initial={p.data.name} />
      <Password />
      <Mobile profile={p.data} />
      <TwoFactor profile={p.data} />
    </section>
  );
}

function Name({ initial }: { initial: string }) {
  const [name, setName] = useState(initial);
  const save = useAction(() => put("/api/auth/profile", { name }), [["profile"]]);
  return (
    <form className="panel" onSubmit={(e: FormEvent) => (e.preventDefault(), save.mutate())} noValidate>
      <h2>Name</h2>
      <Field label="Your name" name="name" required value={name} onChange={(e) => setName(e.target.value)} error={save.error} />
      <ErrorNote error={save.error} />
      {save.isSuccess && <p role="status">Saved.</p>}
      <button type="submit">Save name</button>
    </form>
  );
}

function Password() {
  const [currentPassword, setCurrent] = useState("");
  const [newPassword, setNew] = useState("");
  // a password change ends every login (docs/authentication.md): sign in again with the new one
  const save = useAction(() => post("/api/auth/change-password", { currentPassword, newPassword }), [], () => signedOut("Your password is changed. Sign in with the new one."));
  return (
    <form className="panel" onSubmit={(e: FormEvent) => (e.preventDefault(), save.mutate())} noValidate>
      <h2>Password</h2>
      <Field label="Current password" name="currentPassword" type="password" autoComplete="current-password" value={currentPassword} onChange={(e) => setCurrent(e.target.value)} error={save.error} />
      <Field label="New password" name="newPassword" type="password" autoComplete="new-password" value={newPassword} onChange={(e) => setNew(e.target.value)} error={save.error} />
      <ErrorNote error={save.error} />
      <button type="submit">Change password</button>
    </form>
  );
}

function Mobile({ profile }: { profile: Profile }) {
  const [mobile, setMobile] = useState("");
  const [password, setPassword] = useState("");
  const [otpCode, setCode] = useState("");
  const send = useAction(() => post<{ phoneMasked: string }>("/api/auth/profile/mobile/send-otp", { mobile, password: password || undefined }));
  const verify = useAction(() => post("/api/auth/profile/mobile/verify", { mobile, otpCode }), [["profile"]], () => {
    send.reset();
    setCode("");
    setMobile("");
  });
  return (
    <div className="panel">
      <h2>Mobile number</h2>
      <p>
        {profile.mobileMasked ? `${profile.mobileMasked} (${profile.mobileVerified ? "verified" : "not verified"})` : "No mobile number yet."}
      </p>
      <form onSubmit={(e: FormEvent) => (e.preventDefault(), send.mutate())} noValidate>
        <Field label="New mobile number" name="mobile" type="tel" autoComplete="tel" hint="Digits with the country code" value={mobile} onChange={(e) => setMobile(e.target.value)} error={send.error ?? verify.error} />
        {profile.mobileVerified && profile.twoFactorEnabled && (
          <Field label="Password (your mobile is the second factor)" name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} error={send.error} />
        )}
        <ErrorNote error={send.error} />
        <button type="submit">Send a code</button>
      </form>
      {send.data && (
        <form onSubmit={(e: FormEvent) => (e.preventDefault(), verify.mutate())} noValidate>
          <p role="status">Code sent to {send.data.phoneMasked}.</p>
          <Field label="Code" name="otpCode" inputMode="numeric" autoComplete="one-time-code" value={otpCode} onChange={(e) => setCode(e.target.value)} error={verify.error} />
          <ErrorNote error={verify.error} />
          <button type="submit">Verify number</button>
        </form>
      )}
    </div>
  );
}

function TwoFactor({ profile }: { profile: Profile }) {
  const [password, setPassword] = useState("");
  const save = useAction(() => put("/api/auth/2fa", { enabled: !profile.twoFactorEnabled, password }), [["profile"]], () => setPassword(""));
  return (
    <form className="panel" onSubmit={(e: FormEvent) => (e.preventDefault(), save.mutate())} noValidate>
      <h2>Second factor</h2>
      <p>{profile.twoFactorEnabled ? "On: signing in asks for a code sent to your mobile." : "Off."}</p>
      {!profile.mobileVerified && !profile.twoFactorEnabled && <p className="note">Verify a mobile number first.</p>}
      <Field label="Password" name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} error={save.error} />
      <ErrorNote error={save.error} />
      <button type="submit" disabled={!profile.mobileVerified && !profile.twoFactorEnabled}>
        {profile.twoFactorEnabled ? "Turn off the second factor" : "Turn on the second factor"}
      </button>
    </form>
  );
}
