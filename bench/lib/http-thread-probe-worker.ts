// The worker of http-thread-probe.ts: POSTs each delivery it is given with D9's ten headers (two
// HMACs) and hands the answers back, one message per turn of its event loop.
declare const self: Worker;
const signer = new Bun.CryptoHasher("sha256", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
const decoder = new TextDecoder();
let answers: { id: number; status: number; body: string }[] = [];
let queued = false;
const flush = () => {
  queued = false;
  postMessage(answers);
  answers = [];
};
self.onmessage = (e: MessageEvent<{ id: number; url: string; payload: string }[]>) => {
  for (const d of e.data) {
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      "content-type": "application/json",
      "user-agent": "Parley-Webhooks/probe",
      "x-webhook-event": "message_received",
      "x-webhook-signature": signer.copy().update(d.payload).digest("hex"),
      "x-webhook-delivery-id": String(d.id),
      "x-webhook-attempt": "1",
      "x-webhook-timestamp": String(ts),
      "webhook-id": String(d.id),
      "webhook-timestamp": String(ts),
      "webhook-signature": "v1," + signer.copy().update(`${d.id}.${ts}.${d.payload}`).digest("base64"),
    };
    void fetch(d.url, { method: "POST", headers, body: d.payload, redirect: "manual", signal: AbortSignal.timeout(10_000) }).then(async (res) => {
      answers.push({ id: d.id, status: res.status, body: decoder.decode(await res.bytes()) });
      if (!queued) {
        queued = true;
        setImmediate(flush);
      }
    });
  }
};
postMessage("ready");
export {};
