import { FORMS_CSS, FORMS_JS, formPage } from "./assets.ts";
import type { RoutedApp } from "../../http/routed-app.ts";

// the pages the mail links point at; they only call the public API, like any client would
// strict: one same-origin script and stylesheet, nothing inline
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const html = (body: string) =>
  new Response(body, { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": CSP, "cache-control": "no-store", "referrer-policy": "no-referrer" } });

const RESET = formPage({
  title: "Set a new password",
  intro: "Choose a new password for your Parley account. The link works once and for 30 minutes.",
  api: "/api/auth/reset-password",
  done: "Your password is changed. You can sign in with it now.",
  fields: [
    { name: "password", label: "New password", type: "password", required: true, autocomplete: "new-password" },
    { name: "confirm", label: "New password again", type: "password", required: true, autocomplete: "new-password" },
  ],
});

const ACCEPT = formPage({
  title: "Join the workspace",
  intro: "You were invited to a Parley workspace. Choose your name and a password to join.",
  api: "/api/team/invitations/accept",
  done: "You joined the workspace. You can sign in now.",
  fields: [
    { name: "name", label: "Your name", type: "text", required: true, autocomplete: "name" },
    { name: "mobile", label: "Mobile (digits with country code, optional)", type: "tel", required: false, autocomplete: "tel" },
    { name: "password", label: "Password", type: "password", required: true, autocomplete: "new-password" },
    { name: "confirm", label: "Password again", type: "password", required: true, autocomplete: "new-password" },
  ],
});

/** The pages behind the links in mail: password reset and invitation accept. Not API routes. */
export function pagesRoutes() {
  return (app: RoutedApp) => app
    .get("/reset-password", () => html(RESET), { detail: { hide: true } })
    .get("/accept-invitation", () => html(ACCEPT), { detail: { hide: true } })
    .get("/pages/forms.js", () => new Response(FORMS_JS, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" } }), {
      detail: { hide: true },
    })
    .get("/pages/forms.css", () => new Response(FORMS_CSS, { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=3600" } }), {
      detail: { hide: true },
    });
}
