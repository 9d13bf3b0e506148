/**
 * How a thread's protocol v2 events are stored in Redis (`v2-events.ts` reads and writes them):
 * the scripts that append, number and trim, and the reading of entries back, with their format
 * (`docs/storage.md`, "In Redis").
 */
import { StudioStoredFormatError } from "../../errors";
import type { LoggedEvent } from "../v2/event-log";
import { parseLoggedEvent } from "../v2/event-log";
import { hashOf } from "./connection";

/** The format of the v2 entries this version writes; a newer one is an error, not misread. */
export const V2_EVENT_FORMAT = 1;

/**
 * KEYS: lease, stream. ARGV: lease value, seq, event JSON, max entries, ttl s, format. Appends
 * the event unless another run holds the thread's lease (0 then).
 */
export const V2_APPEND = `
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return 0 end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '0-' .. ARGV[2], 'f', ARGV[6], 'j', ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[5])
return 1
`;

/** KEYS: stream. The `seq` of its last event ever appended (0 for none), trimmed or not. */
export const V2_TOP = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local info = redis.call('XINFO', 'STREAM', KEYS[1])
for i = 1, #info, 2 do
  if info[i] == 'last-generated-id' then return tonumber(string.sub(info[i + 1], 3)) end
end
return 0
`;

/** KEYS: stream. Drops every entry (the last id stays, so numbering goes on). */
export const V2_CLEAR = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local info = redis.call('XINFO', 'STREAM', KEYS[1])
for i = 1, #info, 2 do
  if info[i] == 'last-generated-id' then
    local top = tonumber(string.sub(info[i + 1], 3))
    return redis.call('XTRIM', KEYS[1], 'MINID', '0-' .. tostring(top + 1))
  end
end
return 0
`;

/** The streams of an `XREAD` reply (RESP2: [[key, entries], ...]). */
export function* streamsOf(reply: unknown): Generator<[string, unknown]> {
  if (!Array.isArray(reply)) return;
  for (const stream of reply) {
    if (Array.isArray(stream)) yield [String(stream[0]), stream[1]];
  }
}

/** The events of a list of stream entries (RESP2: [[id, [field, value, ...]], ...]). */
export function* entriesOf(entries: unknown): Generator<LoggedEvent> {
  if (!Array.isArray(entries)) return;
  for (const entry of entries) {
    if (!Array.isArray(entry)) continue;
    const fields = hashOf(entry[1]);
    const format = Number(fields.f || 1);
    if (format > V2_EVENT_FORMAT) {
      throw new StudioStoredFormatError("redis-v2-event", format, V2_EVENT_FORMAT);
    }
    yield parseLoggedEvent(fields.j ?? "{}");
  }
}
