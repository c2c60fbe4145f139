import { WEEKDAYS, type HoursRange, type Weekday } from "./table.ts";
import { minutesOf } from "./model.ts";

const formats = new Map<string, Intl.DateTimeFormat>();

/** The weekday and minute of the day that a wall clock in `timeZone` shows at `t` (the platform's tz data, so DST is followed). */
export function localWeekMinute(t: number, timeZone: string): { day: Weekday; minute: number } {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", weekday: "short", hour: "2-digit", minute: "2-digit" });
    formats.set(timeZone, f);
  }
  let weekday = "";
  let hour = 0;
  let minute = 0;
  for (const p of f.formatToParts(new Date(t))) {
    if (p.type === "weekday") weekday = p.value.toLowerCase();
    else if (p.type === "hour") hour = Number(p.value);
    else if (p.type === "minute") minute = Number(p.value);
  }
  const day = WEEKDAYS.find((d) => weekday.startsWith(d)) ?? "mon";
  return { day, minute: hour * 60 + minute };
}

/** Whether `t` falls inside the working hours (a day without ranges is closed all day). */
export function withinHours(hours: Partial<Record<Weekday, HoursRange[]>>, t: number, timeZone: string): boolean {
  const { day, minute } = localWeekMinute(t, timeZone);
  return (hours[day] ?? []).some((r) => minute >= minutesOf(r.from) && minute < minutesOf(r.to));
}
