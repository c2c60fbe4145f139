import WebSocket from "ws";
import { connect } from "node:tls";
const srv = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { cert: Bun.file("test/fixtures/tls/cert.pem"), key: Bun.file("test/fixtures/tls/key.pem") },
  fetch(req, s) { if (s.upgrade(req)) return; return new Response("no", { status: 400 }); },
  websocket: { message(ws, m) { ws.send(new Uint8Array([1,2,3])); } } });
const t = connect({ host: "127.0.0.1", port: srv.port, servername: "localhost" });
t.on("secureConnect", () => { console.log("tls ok", t.authorized, t.getProtocol()); t.end(); });
t.on("error", (e: any) => console.log("tls err", e.code, e.message));
await Bun.sleep(300);
const ws = new WebSocket(`wss://localhost:${srv.port}/ws/chat`, { origin: "https://web.whatsapp.com", handshakeTimeout: 3000 });
ws.on("upgrade", (r: any) => console.log("upgrade", r?.statusCode));
ws.on("open", () => { console.log("open"); ws.send(new Uint8Array([9])); });
ws.on("message", (d: any) => { console.log("msg", d.length); process.exit(0); });
ws.on("error", (e: any) => console.log("ws err", e.code, e.message));
await Bun.sleep(3000); process.exit(1);
