import { useState, type FormEvent, type KeyboardEvent } from "react";
import { api, post } from "../../api/client.ts";
import type { Conversation, QuickReply } from "../../api/types.ts";
import { typeOf, upload } from "../../ui/download.ts";
import { ErrorNote } from "../../ui/errors.tsx";
import { Field, TextArea } from "../../ui/Field.tsx";
import { useAction } from "../../ui/hooks.ts";
import { QuickReplyPicker, useQuickReplies } from "./QuickReplies.tsx";

const inAnHour = () => {
  const d = new Date(Date.now() + 3_600_000);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/**
 * The composer: a reply (text, an attachment, a quick reply picked with `/`, now or at a chosen
 * time) or an internal note, which only the team sees.
 */
export function Composer({ conv }: { conv: Conversation }) {
  const [mode, setMode] = useState<"reply" | "note">("reply");
  return (
    <div className={`composer composer-${mode}`}>
      <div className="mode" role="radiogroup" aria-label="Write">
        <label className="check">
          <input type="radio" name="mode" checked={mode === "reply"} onChange={() => setMode("reply")} /> Message
        </label>
        <label className="check">
          <input type="radio" name="mode" checked={mode === "note"} onChange={() => setMode("note")} /> Internal note
        </label>
      </div>
      {mode === "reply" ? <Reply conv={conv} /> : <Note conv={conv} />}
    </div>
  );
}

function Note({ conv }: { conv: Conversation }) {
  const [text, setText] = useState("");
  const add = useAction(() => post(`/api/v1/inbox/conversations/${conv.id}/notes`, { body: text }), [["thread", conv.id, "messages"]], () => setText(""));
  return (
    <form
      className="reply note-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) add.mutate();
      }}
      noValidate
    >
      <TextArea label="Note for the team" name="body" rows={2} value={text} onChange={(e) => setText(e.target.value)} error={add.error} hint="Never sent to the contact." />
      <ErrorNote error={add.error} />
      <button type="submit" disabled={add.isPending}>
        {add.isPending ? "Saving…" : "Add note"}
      </button>
    </form>
  );
}

function Reply({ conv }: { conv: Conversation }) {
  const [text, setText] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [inputKey, setInputKey] = useState(0);
  const [quick, setQuick] = useState<QuickReply | null>(null);
  const [later, setLater] = useState(false);
  const [at, setAt] = useState(inAnHour);
  const [active, setActive] = useState(0);
  const picks = useQuickReplies(quick ? "" : text);
  const send = useAction(
    async () => {
      // a group conversation's reply goes to the group
      const body: Record<string, unknown> = { session_id: conv.sessionId, ...(conv.groupId ? { groupId: conv.groupId } : { to: conv.phone }), type: "text" };
      if (quick) body.quickReplyId = quick.id;
      else if (text) body.body = text;
      if (later) body.sendAt = new Date(at).toISOString();
      if (file) {
        const media = await upload(file);
        Object.assign(body, { type: typeOf(media.mimeType), mediaId: media.id, filename: file.name });
      }
      // a fresh key per press: a retried request after a lost answer is not sent twice
      return api("POST", "/api/v1/messages/send", body, { "idempotency-key": crypto.randomUUID() });
    },
    [["thread", conv.id, "messages"], ["conversations"]],
    () => {
      setText("");
      setFile(null);
      setQuick(null);
      setLater(false);
      setInputKey((k) => k + 1);
    },
  );
  const pick = (r: QuickReply) => {
    setQuick(r);
    setText("");
    setActive(0);
  };
  const keys = (e: KeyboardEvent) => {
    if (!picks?.length) return;
    if (e.key === "ArrowDown") setActive((a) => Math.min(a + 1, picks.length - 1));
    else if (e.key === "ArrowUp") setActive((a) => Math.max(a - 1, 0));
    else if (e.key === "Enter" || e.key === "Tab") pick(picks[Math.min(active, picks.length - 1)]!);
    else return;
    e.preventDefault();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (text.trim() || file || quick) send.mutate();
  };
  return (
    <form className="reply" onSubmit={submit} noValidate>
      {quick ? (
        <div className="quick-chosen" aria-live="polite">
          <p>
            Quick reply <strong>/{quick.shortcut}</strong>: {quick.body}
          </p>
          <small className="muted">The server fills the variables for this contact.</small>{" "}
          <button type="button" className="link" onClick={() => setQuick(null)}>
            Write instead
          </button>
        </div>
      ) : (
        <TextArea
          label="Reply"
          name="body"
          rows={2}
          value={text}
          onChange={(e) => (setText(e.target.value), setActive(0))}
          onKeyDown={keys}
          error={send.error}
          hint="Type / for quick replies."
          aria-controls={picks ? "quick-replies" : undefined}
          aria-activedescendant={picks?.[active] ? `qr-${picks[active]!.id}` : undefined}
        />
      )}
      {picks && !quick && <QuickReplyPicker items={picks} active={active} onPick={pick} />}
      <Field key={inputKey} label="Attachment" name="mediaId" type="file" onChange={(e) => setFile(e.target.files?.[0] ?? null)} error={send.error} />
      <label className="check">
        <input type="checkbox" checked={later} onChange={(e) => setLater(e.target.checked)} /> Send later
      </label>
      {later && <Field label="Send at" name="sendAt" type="datetime-local" value={at} onChange={(e) => setAt(e.target.value)} error={send.error} />}
      <ErrorNote error={send.error} />
      <button type="submit" disabled={send.isPending}>
        {send.isPending ? "Sending…" : later ? "Schedule" : "Send"}
      </button>
    </form>
  );
}
