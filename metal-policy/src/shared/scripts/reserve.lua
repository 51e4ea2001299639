-- GCRA reservation. KEYS: tat, pause, learned, freed, epoch, born. ARGV:
-- base spacing µs, floor µs, burst - 1, learn (1 or 0), hint µs (the
-- latest tat this process has seen, 0 if none). The spacing is the learned
-- one (never below the floor) while one is in force and learning is on,
-- else the base. The earliest turn given back (freed) that is still ahead
-- is handed out first.
--
-- The schedule's keys carry no TTL (a volatile-* eviction policy never
-- picks them), so once made they are gone only if evicted, deleted or
-- lost in a restart: tat and born are made together, and one without the
-- other means the schedule vanished. A vanished tat is rebuilt from the
-- hint, so this process's turns already handed out are not handed again.
--
-- Returns {µs to wait, the turn's instant µs, the schedule's tat after it,
-- the step it moved the schedule by, the schedule's epoch, 1 when it is a
-- freed turn handed out again else 0, born (the Redis time the schedule
-- was made, µs), 1 when the schedule was found half gone else 0}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local spacing = tonumber(ARGV[1])
if ARGV[4] == '1' then
  local learned = redis.call('GET', KEYS[3])
  if learned then
    local s, u = string.match(learned, '^(%d+):(%d+)$')
    if s and tonumber(u) > now then spacing = math.max(tonumber(s), tonumber(ARGV[2])) end
  end
end
local epoch = tonumber(redis.call('GET', KEYS[5]) or '0')
local start = math.max(now, tonumber(redis.call('GET', KEYS[2]) or '0'))
local tat = redis.call('GET', KEYS[1])
local born = redis.call('GET', KEYS[6])
local vanished = 0
if (tat and not born) or (born and not tat) then vanished = 1 end
if not born then
  born = string.format('%.0f', now)
  redis.call('SET', KEYS[6], born)
end
born = tonumber(born)
if tat then tat = tonumber(tat) else tat = tonumber(ARGV[5]) end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', '(' .. string.format('%.0f', start))
local freed = redis.call('ZPOPMIN', KEYS[4])
if freed[1] then
  local at = tonumber(freed[2])
  if vanished == 1 then redis.call('SET', KEYS[1], string.format('%.0f', tat)) end
  return {math.floor(at - now), at, tat, spacing, epoch, 1, born, vanished}
end
local tolerance = spacing * tonumber(ARGV[3])
tat = math.max(tat, start)
local at = math.max(start, tat - tolerance)
local next_tat = tat + spacing
redis.call('SET', KEYS[1], string.format('%.0f', next_tat))
return {math.floor(at - now), at, next_tat, spacing, epoch, 0, born, vanished}
