-- GCRA reservation. KEYS: tat, pause, learned. ARGV: base spacing µs,
-- floor µs, burst - 1, learn (1 or 0). The spacing is the learned one
-- (never below the floor) while one is in Redis and learning is on, else
-- the base. Returns the µs to wait before the reserved instant.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local spacing = tonumber(ARGV[1])
if ARGV[4] == '1' then
  local learned = redis.call('GET', KEYS[3])
  if learned then spacing = math.max(tonumber(learned), tonumber(ARGV[2])) end
end
local tolerance = spacing * tonumber(ARGV[3])
local start = math.max(now, tonumber(redis.call('GET', KEYS[2]) or '0'))
local tat = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), start)
local at = math.max(start, tat - tolerance)
local next_tat = tat + spacing
redis.call('SET', KEYS[1], string.format('%.0f', next_tat), 'PX',
  math.floor((next_tat - now) / 1000) + 1000)
return math.floor(at - now)
