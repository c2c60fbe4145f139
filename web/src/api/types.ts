// The shapes the dashboard reads from the public API (docs/api.md and the pages it links).
export interface Session {
  id: string;
  name: string;
  status: "disconnected" | "qr_pending" | "connecting" | "connected";
  phoneNumber: string | null;
  connected: boolean;
  /** the link is open now (false for a connected session while a restart or takeover brings it back) */
  live?: boolean;
  lastDisconnectReason: string | null;
  connectedAt: string | null;
  /** groups: the session's group chats are kept (docs/groups.md) */
  settings?: { groups: boolean };
}
export interface Conversation {
  id: string;
  sessionId: string;
  phone: string;
  contact: { id: string; phone: string; name: string | null; pushName: string | null } | null;
  lastMessage: { id: string; direction: string; type: string; body: string | null; status: string; createdAt: string; preview?: string; at?: string } | null;
  lastMessageAt: string | null;
  unreadCount: number;
  assignee: { id: string; name: string } | null;
  /** open (needs work), pending (waiting on someone), closed (done) */
  status?: "open" | "pending" | "closed";
  snoozedUntil?: string | null;
  labels?: string[];
  /** the number the conversation belongs to (name null once the session is deleted) */
  session?: { id: string; name: string | null; phoneNumber: string | null } | null;
  /** a group conversation: the group, its name and members (null for a person's) */
  groupId?: string | null;
  groupName?: string | null;
  participants?: string[] | null;
}
export interface Message {
  id: string;
  /** "note": an internal note of the team, merged into the thread (never sent) */
  type: string;
  direction?: "inbound" | "outbound";
  /** a note's author */
  author?: { id: string; name: string; email: string } | null;
  /** a scheduled send's time */
  sendAt?: string | null;
  /** the structured content of a reaction, location or contact message */
  payload?: Record<string, unknown> | null;
  replyTo?: { id: string; body?: string | null; type?: string } | string | null;
  /** a group's inbound message: the member who wrote it and the name they go by */
  participant?: string | null;
  participantName?: string | null;
  body: string | null;
  mediaId?: string | null;
  filename?: string | null;
  mimeType?: string | null;
  status?: string;
  error?: { code?: string; message?: string } | string | null;
  /** the auto-reply that sent it, else null */
  automationId?: string | null;
  createdAt: string;
}
export interface Automation {
  id: string;
  name: string;
  trigger:
    | { type: "keyword"; keywords: string[]; match: "exact" | "contains" }
    | { type: "welcome" }
    | { type: "away"; hours: Record<string, { from: string; to: string }[]> };
  reply: { type: string; body: string | null; mediaId?: string };
  sessionIds: string[] | null;
  cooldownMinutes: number;
  isActive: boolean;
  createdAt: string;
}
export interface Member {
  id: string;
  email: string;
  name: string;
  role: "owner" | "admin" | "agent" | "viewer";
  twoFactorEnabled: boolean;
}
export interface Contact {
  id: string;
  phone: string;
  name: string | null;
  pushName: string | null;
  tags: string[];
  attributes: Record<string, string>;
  optedOut: boolean;
  createdAt: string;
}
export interface SegmentFilter {
  tagsAny?: string[];
  tagsAll?: string[];
  tagsNone?: string[];
  attributes?: Record<string, string>;
  lastInboundWithinDays?: number;
  createdWithinDays?: number;
}
export interface Segment {
  id: string;
  name: string;
  filter: SegmentFilter;
  count: number;
}
export interface CampaignStats {
  total: number;
  pending: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  skipped: number;
}
export interface Campaign {
  id: string;
  name: string;
  status: "draft" | "scheduled" | "running" | "paused" | "completed" | "cancelled" | "failed";
  pausedReason: string | null;
  sessionIds: string[];
  message: { type: string; body: string };
  audience: { segmentId?: string; filter?: SegmentFilter; contactIds?: string[] };
  schedule: { at: string } | null;
  stats: CampaignStats;
  waitingUntil?: string | null;
  /** why a running campaign sends nothing now */
  waitingReason?: { code: "quiet_hours" | "warmup" | "daily_cap" | "reconnecting"; message: string; allowance: number | null } | null;
  createdAt: string;
}
export interface Webhook {
  id: string;
  name: string;
  url: string;
  events: string[];
  isActive: boolean;
  disabledReason: string | null;
  secret?: string;
}
export interface Delivery {
  id: string;
  eventType: string;
  status: string;
  responseStatus: number | null;
  attempts: number;
  error: string | null;
  isTest: boolean;
  createdAt: string;
}
export interface QuickReply {
  id: string;
  shortcut: string;
  body: string;
}
/** A search hit: a message with its conversation. */
export interface SearchHit extends Message {
  conversation: Conversation;
}
export interface DayFigures {
  date: string;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  received: number;
  firstResponseSecondsMedian: number | null;
}
export interface CampaignRates {
  id: string;
  name: string;
  status: string;
  total: number;
  delivered: number;
  read: number;
  deliveredRate: number | null;
  readRate: number | null;
}
