import { escapeHtml } from "../../http/html.ts";

/** The pages' one script: posts the form as JSON to the API and shows the envelope's answer. */
export const FORMS_JS = `(() => {
  const form = document.querySelector("form[data-api]");
  const out = document.getElementById("result");
  const token = new URLSearchParams(location.search).get("token") || "";
  if (!token) { out.textContent = "This link has no token. Open the link from your mail again."; form.hidden = true; return; }
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const data = Object.fromEntries(new FormData(form));
    if (data.password !== data.confirm) { out.textContent = "The two passwords differ."; return; }
    delete data.confirm;
    for (const k of Object.keys(data)) if (data[k] === "") delete data[k];
    form.querySelector("button").disabled = true;
    out.textContent = "Sending…";
    try {
      const res = await fetch(form.dataset.api, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...data, token }) });
      const body = await res.json();
      if (body.success) { out.textContent = form.dataset.done; form.hidden = true; return; }
      const fields = body.errors ? Object.entries(body.errors).map(([k, v]) => k + ": " + v).join("; ") : "";
      out.textContent = body.message + (fields ? " (" + fields + ")" : "");
    } catch (e) {
      out.textContent = "The server could not be reached.";
    }
    form.querySelector("button").disabled = false;
  });
})();`;

/** The pages' stylesheet: a file, so the CSP needs no 'unsafe-inline'. */
export const FORMS_CSS = `body{font-family:system-ui,sans-serif;max-width:420px;margin:48px auto;padding:0 16px;color:#222}
label{display:block;margin:12px 0}input{display:block;width:100%;padding:8px;margin-top:4px;box-sizing:border-box}
button{padding:10px 16px;margin-top:8px}#result{margin-top:16px;font-weight:600}`;

const esc = escapeHtml;

export interface PageField {
  name: string;
  label: string;
  type: "text" | "password" | "tel";
  required: boolean;
  autocomplete: string;
}

/** A small form page: no external resource, one same-origin script. */
export function formPage(p: { title: string; intro: string; api: string; done: string; fields: PageField[] }): string {
  const inputs = p.fields
    .map(
      (f) =>
        `<label>${esc(f.label)}<input name="${f.name}" type="${f.type}" autocomplete="${f.autocomplete}"${f.required ? " required" : ""}${f.type === "password" ? ' minlength="8" maxlength="128"' : ""}></label>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(p.title)} · Parley</title>
<link rel="stylesheet" href="/pages/forms.css"></head>
<body><h1>${esc(p.title)}</h1><p>${esc(p.intro)}</p>
<form data-api="${esc(p.api)}" data-done="${esc(p.done)}">
${inputs}
<button type="submit">${esc(p.title)}</button>
</form>
<p id="result" role="status"></p>
<script src="/pages/forms.js" defer></script>
</body></html>`;
}
