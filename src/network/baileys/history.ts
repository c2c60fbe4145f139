import { proto } from "baileys";

const T = proto.HistorySync.HistorySyncType;

/** What of the phone's history a new link downloads and processes. */
export interface HistoryOptions {
  /** off: only the small parts; recent: also the recent chats, within `maxBytes` */
  mode: "off" | "recent";
  /** total (compressed) bytes of history chunks a link downloads with `recent` */
  maxBytes: number;
}

/** A history part this small (or sent inline) is always taken: it carries the LID-to-number mappings and names baileys needs. */
export const SMALL_HISTORY_BYTES = 1024 * 1024;

type Notification = Pick<proto.Message.IHistorySyncNotification, "syncType" | "fileLength" | "initialHistBootstrapInlinePayload">;

function bytesOf(n: Notification): number | undefined {
  const v = n.fileLength as unknown;
  if (typeof v === "number") return v;
  if (v && typeof (v as { toNumber?: unknown }).toNumber === "function") return (v as { toNumber(): number }).toNumber();
  if (typeof v === "string" && v) return Number(v);
  return undefined;
}

/**
 * baileys' `shouldSyncHistoryMessage` for one link. A first pairing is otherwise followed by
 * the download and decoding of the phone's history (megabytes to hundreds of megabytes: a CPU
 * and memory spike on a small machine) that Parley does not store anyway. Never the full
 * history or on-demand parts. `off` (the default) takes the push names and the small bootstrap
 * and non-blocking parts (LID-to-number mappings, which baileys needs to address contacts);
 * `recent` also takes the recent chats until `maxBytes` have been downloaded. The budget is
 * the link's, across reconnects.
 */
export function historyFilter(o: HistoryOptions): (n: Notification) => boolean {
  let spent = 0;
  return (n) => {
    const type = n.syncType ?? undefined;
    if (type === T.FULL || type === T.ON_DEMAND || type === T.INITIAL_STATUS_V3) return false;
    const bytes = bytesOf(n);
    const small = !!n.initialHistBootstrapInlinePayload?.length || (bytes !== undefined && bytes <= SMALL_HISTORY_BYTES);
    if (type === T.PUSH_NAME || type === T.NON_BLOCKING_DATA) return bytes === undefined || small;
    if (type === T.INITIAL_BOOTSTRAP && (bytes === undefined || small) && o.mode === "off") return true;
    if (o.mode === "off") return false;
    // recent: INITIAL_BOOTSTRAP and RECENT within the budget (a probe without a size is answered yes)
    if (type !== T.INITIAL_BOOTSTRAP && type !== T.RECENT) return false;
    if (bytes === undefined) return spent < o.maxBytes;
    if (spent + bytes > o.maxBytes) return false;
    spent += bytes;
    return true;
  };
}
