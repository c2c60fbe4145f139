import { z } from "zod";
import { pageQuery } from "../../http/envelope.ts";
import { lazySchema } from "../../http/lazy-schema.ts";
import { isTimeZone } from "../campaigns/pacing.ts";
import { isCalendarDay } from "./days.ts";

/** The longest range GET /api/v1/analytics/messages answers, in days. */
export const MAX_RANGE_DAYS = 366;

const day = () => z.string().refine(isCalendarDay, "must be a date written YYYY-MM-DD");

export const messageAnalyticsQuery = lazySchema(() =>
  z.object({
    /** first day (inclusive); default 29 days before `to` */
    from: day().optional(),
    /** last day (inclusive); default today */
    to: day().optional(),
    sessionId: z.uuid().optional(),
    /** IANA time zone the days are counted in; default UTC */
    timezone: z.string().min(1).max(64).refine(isTimeZone, "is not a known IANA time zone").optional(),
  }),
);
export type MessageAnalyticsQuery = z.infer<typeof messageAnalyticsQuery>;

export const campaignAnalyticsQuery = pageQuery;

/** One day of GET /api/v1/analytics/messages. */
export interface DayStats {
  date: string;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  received: number;
  firstResponseSecondsMedian: number | null;
}
