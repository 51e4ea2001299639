-- Takes a slot or queues for one. KEYS: holders, queue, queue expiry,
-- seq. ARGV: id, limit, lease ms, waiter ttl ms. Returns 1 when the slot
-- is taken, else minus the waiter's place in line (-1: next; the caller
-- stays queued and polls again, less often the further back it is). No
-- TTLs (see reserve.lua): expired holders and waiters are pruned here.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local id, limit = ARGV[1], tonumber(ARGV[2])
local lease, wttl = tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, w in ipairs(gone) do
  redis.call('ZREM', KEYS[2], w)
  redis.call('ZREM', KEYS[3], w)
end
local function take()
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZADD', KEYS[1], now + lease, id)
  return 1
end
if redis.call('ZSCORE', KEYS[1], id) then return take() end
if not redis.call('ZSCORE', KEYS[2], id) then
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), id)
end
redis.call('ZADD', KEYS[3], now + wttl, id)
local free = limit - redis.call('ZCARD', KEYS[1])
local rank = redis.call('ZRANK', KEYS[2], id)
if rank < free then return take() end
return free - rank - 1
