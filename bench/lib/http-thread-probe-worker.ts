// The worker of http-thread-probe.ts: POSTs each delivery it is given with the ten delivery headers (two
// HMACs, made by the dispatcher's deliveryHeaders) and hands the answers back, one message per
// turn of its event loop.
import { deliveryHeaders } from "../../src/modules/webhooks/deliver.ts";
import { signerFor } from "../../src/modules/webhooks/signing.ts";

declare const self: Worker;
const signer = signerFor("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
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
    // the dispatcher's own headers and signatures
    const delivery = { id: String(d.id), eventType: "message_received", payload: d.payload, attempts: 1, isTest: false };
    const headers = deliveryHeaders(delivery, signer, Math.floor(Date.now() / 1000), "probe");
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
