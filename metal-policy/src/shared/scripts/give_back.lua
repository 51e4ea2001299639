-- Gives back a reserved turn that will not be used (its wait was
-- dropped). KEYS: tat, freed, epoch, pause. ARGV: the turn's instant µs,
-- the tat after it, its step µs, its epoch, reused (1 or 0). A turn of a
-- schedule since pulled back (another epoch), or whose instant has passed,
-- is dropped. When it was the last turn reserved (the schedule has not
-- moved since, and it is not a freed turn handed out again), the schedule
-- moves back one step; otherwise its instant is kept in freed for the next
-- reservation, so no instant is ever handed to two requests. Returns 1
-- when the schedule moved back, 2 when the turn was kept, 0 when dropped.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
if tonumber(redis.call('GET', KEYS[3]) or '0') ~= tonumber(ARGV[4]) then return 0 end
local at = tonumber(ARGV[1])
if at <= now then return 0 end
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if ARGV[5] == '0' and tat == tonumber(ARGV[2]) then
  local floor = math.max(now, tonumber(redis.call('GET', KEYS[4]) or '0'))
  local back = math.max(tat - tonumber(ARGV[3]), floor)
  redis.call('SET', KEYS[1], string.format('%.0f', back))
  return 1
end
local member = string.format('%.0f', at)
redis.call('ZADD', KEYS[2], member, member)
return 2
