import type { EmailMessage } from "../../notify/notifier.ts";
import { escapeHtml } from "../../http/html.ts";

const esc = escapeHtml;

/** A link under the operator's public URL. */
export function link(publicUrl: string, path: string, params: Record<string, string> = {}): string {
  const url = new URL(path, publicUrl.endsWith("/") ? publicUrl : publicUrl + "/");
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

function html(title: string, paragraphs: string[]): string {
  return `<!doctype html><html><body style="font-family:sans-serif;max-width:560px;margin:auto">
<h2>${esc(title)}</h2>
${paragraphs.map((p) => `<p>${p}</p>`).join("\n")}
<p style="color:#888;font-size:12px">Parley</p>
</body></html>`;
}

/** The email verification code mail (docs/authentication.md). */
export function verificationMail(to: string, name: string, code: string, minutes: number): EmailMessage {
  // no link: the code is entered where the sign-up happened, which holds the registration token
  return {
    to,
    kind: "verification",
    subject: "Your Parley verification code",
    text: `Hello ${name},\n\nYour email verification code is: ${code}\n\nIt is valid for ${minutes} minutes. Enter it in the app where you signed up.\n\nIf you did not sign up for Parley, ignore this mail.\n`,
    html: html("Verify your email", [
      `Hello ${esc(name)},`,
      `Your email verification code is: <strong style="font-size:20px;letter-spacing:3px">${code}</strong>`,
      `It is valid for ${minutes} minutes. Enter it in the app where you signed up.`,
      "If you did not sign up for Parley, ignore this mail.",
    ]),
  };
}

/** The password reset mail with its single-use link (docs/authentication.md). */
export function resetMail(publicUrl: string, to: string, name: string, token: string, minutes: number): EmailMessage {
  const url = link(publicUrl, "reset-password", { token });
  return {
    to,
    kind: "reset",
    subject: "Reset your Parley password",
    text: `Hello ${name},\n\nSomeone asked to reset the password of your Parley account. To choose a new one, open:\n\n${url}\n\nThe link works once, within ${minutes} minutes. If it was not you, ignore this mail: your password stays as it is.\n`,
    html: html("Reset your password", [
      `Hello ${esc(name)},`,
      "Someone asked to reset the password of your Parley account.",
      `<a href="${esc(url)}">Choose a new password</a> (the link works once, within ${minutes} minutes).`,
      "If it was not you, ignore this mail: your password stays as it is.",
    ]),
  };
}

/** The text of a mobile code. */
export function otpText(code: string, purpose: "mobile_verify" | "login" | "change_mobile", minutes: number): string {
  const what = { login: "login code", mobile_verify: "verification code", change_mobile: "code to add this number to your account" }[purpose];
  return `Your Parley ${what} is ${code}. It expires in ${minutes} minutes. Never share it.`;
}
