/** The contract between Parley and a messaging network (the real one through baileys, or the sim). */

export type MessageType = "text" | "image" | "document" | "audio" | "video";
/** Messages may also be reactions, locations and contact cards (docs/messages.md). */
export type InboundType = MessageType | "reaction" | "location" | "contact";

export type DisconnectReason =
  | "user_request"
  | "logged_out"
  | "connection_lost"
  | "replaced"
  | "banned"
  | "pairing_timeout"
  | "version_rejected"
  /** the network's edge refused the WebSocket upgrade (HTTP 503 and the like): retried with backoff */
  | "edge_refused"
  /** the network keeps refusing the stored link (500 bad session): it must be paired again */
  | "bad_session"
  | "error";

/**
 * Where a driver keeps a link's secrets (the session manager's implementation seals every
 * value and writes it to the database). Every write is durable when its promise resolves, so
 * a driver that awaits it before answering the network never loses a key the network was
 * already told about. Calls take effect in the order they were made.
 */
export interface CredentialStore {
  /** replaces the link's main document (baileys: `creds`) */
  save(doc: string): Promise<void>;
  /** the stored values (JSON text) of the given ids of one key type */
  getKeys(type: string, ids: string[]): Promise<Record<string, string>>;
  /** writes (value) and deletes (null) in one transaction */
  setKeys(changes: { type: string; id: string; value: string | null }[]): Promise<void>;
  /** drops every key of the link */
  clearKeys(): Promise<void>;
}

/** A recent outbound message of the session by its network id, for the network's retry requests (baileys' getMessage). */
export type SentLookup = (networkMessageId: string) => Promise<OutboundMessage | undefined>;

/** What the session manager hands a driver with each connect. */
export interface ConnectOptions {
  /** the stored link (the sim's token; baileys' creds document), null to link anew */
  credentials: string | null;
  /** where the link's secrets live (baileys); without it they stay in memory */
  store?: CredentialStore;
  lookupSent?: SentLookup;
  /** the session's `groups` setting: its group chats are read (off: the driver may ignore them entirely) */
  groups?: boolean;
}

export interface MediaPayload {
  data: Uint8Array;
  mimeType: string;
  filename?: string;
}

/** Media a driver streamed to a file (inbound): the receiver takes the file over (moves or removes it). */
export interface MediaFile {
  file: string;
  size: number;
  mimeType: string;
  filename?: string;
}

export interface OutboundMessage {
  /**
   * digits with country code, no plus; or a `<digits>@lid` address taken from an inbound
   * message; or a group's address (`...@g.us`, see group-address.ts)
   */
  to: string;
  /** a MessageType: only those are queued (the stored types a row may carry are wider) */
  type: InboundType;
  /** text, or caption for media */
  text?: string;
  media?: MediaPayload;
  /**
   * Id chosen by Parley, stable across resends of the same message. A driver uses it as the
   * network message id (baileys: the message key id) or otherwise recognises a repeat, so a
   * send retried after a crash is not delivered twice.
   */
  clientMessageId?: string;
  /** the message this one quotes, as the network knows it */
  quoted?: { networkMessageId: string; fromMe: boolean; text: string };
  /** type reaction: the emoji ("" takes an earlier reaction back) on a message of the chat */
  reaction?: { networkMessageId: string; fromMe: boolean; emoji: string };
  /** type location */
  location?: { latitude: number; longitude: number; name: string | null; address: string | null };
  /** type contact: the cards (a name and its phone numbers, digits with country code) */
  contacts?: { name: string; phones: string[] }[];
}

/** A group chat the session is in. */
export interface GroupInfo {
  /** the group's address, `...@g.us` */
  id: string;
  name: string | null;
  /** the members: phone numbers, or `<digits>@lid` where the network hides one */
  participants: string[];
}

export interface InboundMessage {
  networkMessageId: string;
  /**
   * digits with country code; `<digits>@lid` when the network hides the number (never LID
   * digits as a phone). In a group: the member who wrote.
   */
  from: string;
  /** set when the message was written in a group: the group (its name and members when the driver knows them) */
  group?: { id: string; name?: string | null; participants?: string[] };
  pushName?: string;
  type: InboundType;
  /** text, caption, or the text rendering of a reaction, location or contact card */
  text?: string;
  /** reaction, location, contact: the structured content (stored as JSON) */
  payload?: Record<string, unknown>;
  media?: MediaPayload | MediaFile;
  /** a URL the media can be fetched from, when the network gives one (the sim's `mediaUrl`) */
  mediaUrl?: string;
  timestamp: Date;
  /**
   * the message arrived but could not be decrypted on this device: `text` is a placeholder; the
   * network is asked to send it again, and a copy that decrypts arrives with the same id
   */
  undecryptable?: boolean;
}

/** A message the account's owner sent from the phone: the contact (or group address) is `to`. */
export type EchoMessage = Omit<InboundMessage, "from" | "pushName"> & { to: string };

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
  | { type: "receipt"; sessionId: string; networkMessageId: string; status: "delivered" | "read"; at: Date }
  /**
   * the network told which phone number is behind a hidden address (`<digits>@lid`): what was
   * recorded under the address (contact, conversations, messages) belongs to the number
   */
  | { type: "identity"; sessionId: string; lid: string; phone: string }
  /** the owner wrote from the phone (not through Parley): recorded as an outbound message, already sent */
  | { type: "outbound_echo"; sessionId: string; message: EchoMessage }
  /**
   * the network refused a message after accepting it (baileys: an ack with an error code);
   * `restricted`: the account may not start chats for a while, so sending should pause
   */
  | { type: "rejected"; sessionId: string; networkMessageId: string; code: string; restricted: boolean; detail: string };

export type DriverListener = (event: DriverEvent) => void;

/** One number's presence on the network. */
export interface NumberCheck {
  phone: string;
  onNetwork: boolean;
}

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
  connect(sessionId: string, opts: ConnectOptions): Promise<void>;
  /** Linking by phone number instead of QR, while a QR is pending. */
  requestPairingCode(sessionId: string, phoneNumber: string): Promise<string>;
  /** Closes the connection; `logout` also unlinks the device on the network. */
  disconnect(sessionId: string, opts: { logout: boolean }): Promise<void>;
  send(sessionId: string, message: OutboundMessage): Promise<{ networkMessageId: string }>;
  onEvent(listener: DriverListener): () => void;
  /**
   * Whether phone numbers (digits) are on the network, asked through a connected session (at
   * most 50 at once). A number the answer cannot place is left out (unknown).
   */
  checkNumbers?(sessionId: string, phones: string[]): Promise<NumberCheck[]>;
  /** The groups the connected session is in, as the network describes them now. */
  listGroups?(sessionId: string): Promise<GroupInfo[]>;
  /** The session's `groups` setting changed (takes effect on the live connection). */
  setGroups?(sessionId: string, on: boolean): void;
  /** Closes every connection without unlinking (server shutdown). */
  shutdown(): Promise<void>;
}
