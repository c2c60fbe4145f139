/** The contract between Parley and a messaging network (the real one through baileys, or the sim). */

export type MessageType = "text" | "image" | "document" | "audio" | "video";

export type DisconnectReason = "user_request" | "logged_out" | "connection_lost" | "replaced" | "banned" | "pairing_timeout" | "error";

export interface MediaPayload {
  data: Uint8Array;
  mimeType: string;
  filename?: string;
}

export interface OutboundMessage {
  /** digits with country code, no plus */
  to: string;
  type: MessageType;
  /** text, or caption for media */
  text?: string;
  media?: MediaPayload;
  /**
   * Id chosen by Parley, stable across resends of the same message. A driver uses it as the
   * network message id (baileys: the message key id) or otherwise recognises a repeat, so a
   * send retried after a crash is not delivered twice.
   */
  clientMessageId?: string;
}

export interface InboundMessage {
  networkMessageId: string;
  from: string;
  pushName?: string;
  type: MessageType;
  text?: string;
  media?: MediaPayload;
  /** a URL the media can be fetched from, when the network gives one (the sim's `mediaUrl`) */
  mediaUrl?: string;
  timestamp: Date;
}

export type DriverEvent =
  | { type: "qr"; sessionId: string; qr: string; expiresAt: Date }
  | { type: "connected"; sessionId: string; phoneNumber: string }
  | {
      type: "disconnected";
      sessionId: string;
      reason: DisconnectReason;
      willReconnect: boolean;
      detail?: string;
      /** when `willReconnect`: the delay before the next attempt (backoff with jitter) */
      retryInMs?: number;
    }
  | { type: "credentials"; sessionId: string; credentials: string | null }
  | { type: "inbound"; sessionId: string; message: InboundMessage }
  | { type: "receipt"; sessionId: string; networkMessageId: string; status: "delivered" | "read"; at: Date };

export type DriverListener = (event: DriverEvent) => void;

/** Raised by a driver when the network cannot be reached or refuses; maps to 502 CHATAPP_UNAVAILABLE. */
export class NetworkError extends Error {
  constructor(
    message: string,
    /** true when retrying later may succeed */
    readonly transient: boolean,
    readonly code = "network_error",
  ) {
    super(message);
    this.name = "NetworkError";
  }
}

export interface NetworkDriver {
  readonly name: "sim" | "baileys";
  /** Starts linking (emits qr) or, with stored credentials, reconnects (emits connected). */
  connect(sessionId: string, opts: { credentials: string | null }): Promise<void>;
  /** Linking by phone number instead of QR, while a QR is pending. */
  requestPairingCode(sessionId: string, phoneNumber: string): Promise<string>;
  /** Closes the connection; `logout` also unlinks the device on the network. */
  disconnect(sessionId: string, opts: { logout: boolean }): Promise<void>;
  send(sessionId: string, message: OutboundMessage): Promise<{ networkMessageId: string }>;
  onEvent(listener: DriverListener): () => void;
  /** Closes every connection without unlinking (server shutdown). */
  shutdown(): Promise<void>;
}
