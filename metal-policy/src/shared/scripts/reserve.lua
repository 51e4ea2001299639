-- GCRA reservation. KEYS: tat, pause, learned, freed, epoch. ARGV: base
-- spacing µs, floor µs, burst - 1, learn (1 or 0). The spacing is the
-- learned one (never below the floor) while one is in Redis and learning
-- is on, else the base. The earliest turn given back (freed) that is still
-- ahead is handed out first. Returns {µs to wait, the turn's instant µs,
-- the schedule's tat after it, the step it moved the schedule by, the
-- schedule's epoch, 1 when it is a freed turn handed out again else 0}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local spacing = tonumber(ARGV[1])
if ARGV[4] == '1' then
  local learned = redis.call('GET', KEYS[3])
  if learned then spacing = math.max(tonumber(learned), tonumber(ARGV[2])) end
end
local epoch = tonumber(redis.call('GET', KEYS[5]) or '0')
local start = math.max(now, tonumber(redis.call('GET', KEYS[2]) or '0'))
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', '(' .. string.format('%.0f', start))
local freed = redis.call('ZPOPMIN', KEYS[4])
if freed[1] then
  local at = tonumber(freed[2])
  return {math.floor(at - now), at, tat, spacing, epoch, 1}
end
local tolerance = spacing * tonumber(ARGV[3])
tat = math.max(tat, start)
local at = math.max(start, tat - tolerance)
local next_tat = tat + spacing
redis.call('SET', KEYS[1], string.format('%.0f', next_tat), 'PX',
  math.floor((next_tat - now) / 1000) + 1000)
return {math.floor(at - now), at, next_tat, spacing, epoch, 0}
