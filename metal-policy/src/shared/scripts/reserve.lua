-- GCRA reservation. KEYS: tat, pause. ARGV: spacing µs, tolerance µs.
-- Returns the µs to wait before the reserved instant.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local spacing = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local start = math.max(now, tonumber(redis.call('GET', KEYS[2]) or '0'))
local tat = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), start)
local at = math.max(start, tat - tolerance)
local next_tat = tat + spacing
redis.call('SET', KEYS[1], string.format('%.0f', next_tat), 'PX',
  math.floor((next_tat - now) / 1000) + 1000)
return math.floor(at - now)
