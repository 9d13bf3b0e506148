/**
 * The Lua scripts that change a thread's runs: each one is atomic in Redis, so two instances
 * admitting, starting or ending runs of one thread at once see each other's changes whole.
 *
 * A thread's keys (`keys.ts`): `live` (its runs that have not ended, in admission order; the
 * head runs), `lease` (`<run id>|<instance>|<fence>`, expiring unless renewed), `fence` (a
 * counter: each lease gets the next number), `runs` (its runs by creation time). `due` is one
 * sorted set of the threads whose head should be running by a time (its lease's expiry, or when
 * it became head): past it, any instance takes the head over (`TAKE_OVER`).
 */

/**
 * KEYS: live, runs, run hash, due. ARGV: run id, strategy, created ms, run JSON, shared JSON,
 * cancel key prefix, cancel channel, now ms, lease ms, thread id, runs kept per thread, record
 * format, background ('1': pending until an instance with a free worker slot starts it).
 * Returns {"busy", head} for "reject" on a busy thread, else {"ok", number of runs ahead}.
 */
export const ADMIT = `
local live = redis.call('LRANGE', KEYS[1], 0, -1)
if #live > 0 and ARGV[2] == 'reject' then return {'busy', live[#live]} end
if #live > 0 and (ARGV[2] == 'interrupt' or ARGV[2] == 'rollback') then
  for _, id in ipairs(live) do
    redis.call('SET', ARGV[6] .. id, '1', 'PX', 86400000)
    redis.call('PUBLISH', ARGV[7], id)
  end
end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -tonumber(ARGV[11]) - 1)
local status = 'running'
if #live > 0 or ARGV[13] == '1' then status = 'pending' end
redis.call('HSET', KEYS[3], 'run', ARGV[4], 'shared', ARGV[5], 'status', status,
  'updated_at', '', 'thread', ARGV[10], 'format', ARGV[12])
if #live == 0 then
  redis.call('ZADD', KEYS[4], tonumber(ARGV[8]) + tonumber(ARGV[9]), ARGV[10])
end
return {'ok', tostring(#live)}
`;

/**
 * KEYS: live, lease, fence, due, cancel key, run hash. ARGV: run id, instance, lease ms, now ms,
 * thread id, updated at. Returns the fence (> 0) when the run took the lease; 0 when it must wait;
 * -1 when it was cancelled; -2 when another instance took it over (or started it, or ended it:
 * a run that started elsewhere goes on there, or from its checkpoints, never from its input). A
 * run missing from the line that has not ended (Redis restarted without its data) joins it again.
 */
export const ACQUIRE = `
if redis.call('EXISTS', KEYS[5]) == 1 then return -1 end
if not redis.call('LPOS', KEYS[1], ARGV[1]) then
  if redis.call('HGET', KEYS[6], 'ended') == '1' then return -2 end
  redis.call('RPUSH', KEYS[1], ARGV[1])
end
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] then return 0 end
local held = redis.call('GET', KEYS[2])
if held then
  if string.sub(held, 1, #ARGV[1] + 1) == ARGV[1] .. '|' then return -2 end
  return 0
end
if redis.call('HEXISTS', KEYS[6], 'started_at') == 1 then return -2 end
local fence = redis.call('INCR', KEYS[3])
redis.call('SET', KEYS[2], ARGV[1] .. '|' .. ARGV[2] .. '|' .. fence, 'PX', ARGV[3])
redis.call('ZADD', KEYS[4], tonumber(ARGV[4]) + tonumber(ARGV[3]), ARGV[5])
redis.call('HSET', KEYS[6], 'status', 'running', 'updated_at', ARGV[6], 'started_at', ARGV[6])
return fence
`;

/**
 * KEYS: lease, due. ARGV: lease value, lease ms, now ms, thread id. 1: renewed; 2: taken again
 * (Redis lost it: restarted without its data); 0: another instance holds it (this one lost it).
 */
export const RENEW = `
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], tonumber(ARGV[3]) + tonumber(ARGV[2]), ARGV[4])
if held then return 1 end
return 2
`;

/**
 * KEYS: lease, stream. ARGV: lease value, entry id, event, data, most entries kept. Adds the
 * event unless another instance holds the lease (this one lost it: its events are refused).
 */
export const APPEND = `
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return 0 end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], ARGV[2], 'e', ARGV[3], 'd', ARGV[4])
return 1
`;

/**
 * KEYS: live, lease, run hash, stream, due, ready. ARGV: run id, lease value ('' for a run that
 * never held it), status, updated at, last values, error, handed off ('1'), record ttl s, events
 * ttl s, now ms, lease ms, thread id, wake channel, run JSON, run key prefix, ready channel. Ends
 * the run (or hands it off: it stays the head, its lease freed and due now). 0 when another
 * instance holds its lease. A next head marked `queued` (a background run) joins `ready`.
 */
export const END = `
local held = redis.call('GET', KEYS[2])
if ARGV[2] ~= '' and held and held ~= ARGV[2] then return 0 end
if ARGV[7] == '1' then
  if ARGV[2] == '' or held ~= ARGV[2] then return 0 end
  redis.call('DEL', KEYS[2])
  redis.call('ZADD', KEYS[5], 0, ARGV[12])
  redis.call('PUBLISH', ARGV[13], 'handoff:' .. ARGV[12])
  return 1
end
redis.call('LREM', KEYS[1], 1, ARGV[1])
if held and ARGV[2] ~= '' then redis.call('DEL', KEYS[2]) end
redis.call('HSET', KEYS[3], 'status', ARGV[3], 'updated_at', ARGV[4], 'values', ARGV[5],
  'error', ARGV[6], 'ended', '1', 'run', ARGV[14], 'thread', ARGV[12])
redis.call('EXPIRE', KEYS[3], ARGV[8])
redis.call('XADD', KEYS[4], '1-0', 'e', '__end__', 'd', ARGV[3])
redis.call('EXPIRE', KEYS[4], ARGV[9])
local head = redis.call('LINDEX', KEYS[1], 0)
if head and redis.call('EXISTS', KEYS[2]) == 0
    and redis.call('HGET', ARGV[15] .. head, 'queued') == '1'
    and redis.call('ZADD', KEYS[6], 'NX', ARGV[10], ARGV[12]) == 1 then
  redis.call('PUBLISH', ARGV[16], ARGV[12])
end
if redis.call('LLEN', KEYS[1]) > 0 then
  redis.call('ZADD', KEYS[5], tonumber(ARGV[10]) + tonumber(ARGV[11]), ARGV[12])
else
  redis.call('ZREM', KEYS[5], ARGV[12])
end
redis.call('PUBLISH', ARGV[13], ARGV[12])
return 1
`;

/**
 * KEYS: live, lease, fence, due. ARGV: thread id, instance, lease ms, now ms, run key prefix,
 * cancel key prefix, updated at. Takes the lease of a thread whose head has none (its instance
 * died or drained) and returns {run id, fence, shared JSON, run JSON, cancelled, checkpointed};
 * nil when there is nothing to take (a thread with a lease is due again when it expires).
 */
export const TAKE_OVER = `
local ttl = redis.call('PTTL', KEYS[2])
if ttl > 0 then
  redis.call('ZADD', KEYS[4], tonumber(ARGV[4]) + ttl, ARGV[1])
  return nil
end
local head = redis.call('LINDEX', KEYS[1], 0)
if not head then
  redis.call('ZREM', KEYS[4], ARGV[1])
  return nil
end
local fence = redis.call('INCR', KEYS[3])
redis.call('SET', KEYS[2], head .. '|' .. ARGV[2] .. '|' .. fence, 'PX', ARGV[3])
redis.call('ZADD', KEYS[4], tonumber(ARGV[4]) + tonumber(ARGV[3]), ARGV[1])
local key = ARGV[5] .. head
local shared = redis.call('HGET', key, 'shared') or ''
local run = redis.call('HGET', key, 'run') or ''
local checkpointed = redis.call('HGET', key, 'checkpointed') or '0'
if shared ~= '' then redis.call('HSET', key, 'status', 'running', 'updated_at', ARGV[7]) end
local cancelled = redis.call('EXISTS', ARGV[6] .. head)
local format = redis.call('HGET', key, 'format') or '1'
local started = redis.call('HGET', key, 'started_at') or ''
return {head, tostring(fence), shared, run, tostring(cancelled), checkpointed, format, started}
`;

/**
 * The ready queue (`ready-queue.ts`). KEYS: live, lease, ready, cancel key, run hash. ARGV: run
 * id, now ms, ready channel, thread id. Marks a background run `queued` (any instance may start
 * it at its turn) and, when it is its thread's head with no lease, puts the thread in `ready`
 * (announced on the ready channel). Returns as `ACQUIRE` does: 0 waiting, -1 cancelled, -2
 * started by another instance (or ended): a run that started once is never queued again (an
 * instance that lost it takes it over from its checkpoints, `TAKE_OVER`).
 */
export const OFFER = `
if redis.call('EXISTS', KEYS[4]) == 1 then return -1 end
if not redis.call('LPOS', KEYS[1], ARGV[1]) then
  if redis.call('HGET', KEYS[5], 'ended') == '1' then return -2 end
  return 0
end
local held = redis.call('GET', KEYS[2])
if held and string.sub(held, 1, #ARGV[1] + 1) == ARGV[1] .. '|' then return -2 end
if redis.call('HEXISTS', KEYS[5], 'started_at') == 1 then return -2 end
redis.call('HSET', KEYS[5], 'queued', '1')
if held or redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[5], 'status', 'pending')
if redis.call('ZADD', KEYS[3], 'NX', ARGV[2], ARGV[4]) == 1 then
  redis.call('PUBLISH', ARGV[3], ARGV[4])
end
return 0
`;

/**
 * KEYS: ready, due. ARGV: instance, lease ms, now ms, thread key prefix, run key prefix, cancel
 * key prefix, updated at, wake channel, most threads looked at. Takes the lease of the oldest
 * ready thread's head (a `queued` run that never started, not cancelled) for this instance, as
 * `TAKE_OVER` does, and returns {run id, fence, shared JSON, run JSON, thread id, format}; nil
 * when none is ready. Threads whose head is started, gone or not queued leave `ready`; the
 * thread's wake tells the run's admitting instance that it runs elsewhere.
 */
export const CLAIM = `
local threads = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[9]) - 1)
for _, thread in ipairs(threads) do
  local t = ARGV[4] .. thread .. ':'
  local head = redis.call('LINDEX', t .. 'live', 0)
  local key = ARGV[5] .. (head or '')
  if not head or redis.call('EXISTS', t .. 'lease') == 1
      or redis.call('HGET', key, 'queued') ~= '1'
      or redis.call('HEXISTS', key, 'started_at') == 1 then
    redis.call('ZREM', KEYS[1], thread)
  elseif redis.call('EXISTS', ARGV[6] .. head) == 0 then
    redis.call('ZREM', KEYS[1], thread)
    local fence = redis.call('INCR', t .. 'fence')
    redis.call('SET', t .. 'lease', head .. '|' .. ARGV[1] .. '|' .. fence, 'PX', ARGV[2])
    redis.call('ZADD', KEYS[2], tonumber(ARGV[3]) + tonumber(ARGV[2]), thread)
    redis.call('HSET', key, 'status', 'running', 'updated_at', ARGV[7], 'started_at', ARGV[7])
    redis.call('PUBLISH', ARGV[8], thread)
    local shared = redis.call('HGET', key, 'shared') or ''
    local run = redis.call('HGET', key, 'run') or ''
    local format = redis.call('HGET', key, 'format') or '1'
    return {head, tostring(fence), shared, run, thread, format}
  end
end
return nil
`;
