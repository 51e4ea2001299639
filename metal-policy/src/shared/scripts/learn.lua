-- Keeps the spacing learned from a reply's rate-limit headers until the
-- reset (as "spacing:until", both µs; no TTL, see reserve.lua). KEYS:
-- learned, tat, epoch, freed. ARGV: spacing µs, µs until the reset, base
-- spacing µs, none left (1 or 0), the channel to announce a pulled-back
-- schedule on. A spacing much faster (by more than a quarter) than the one
-- in force pulls the schedule back to it, so the turns of the slower pace
-- are not waited out: the epoch becomes the Redis time of the pull (so it
-- only grows, even across a Redis restart), the freed turns of the old
-- schedule are forgotten, and the new epoch is published on the channel,
-- for every process's waiting turns to reserve again. None left moves the
-- schedule to the reset. Returns the epoch in force.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local spacing, untl = tonumber(ARGV[1]), tonumber(ARGV[2])
local before = tonumber(ARGV[3])
local kept = redis.call('GET', KEYS[1])
if kept then
  local s, u = string.match(kept, '^(%d+):(%d+)$')
  if s and tonumber(u) > now then before = tonumber(s) end
end
redis.call('SET', KEYS[1], string.format('%.0f:%.0f', spacing, now + math.max(untl, 1000)))
local tat = tonumber(redis.call('GET', KEYS[2]) or '0')
local epoch = tonumber(redis.call('GET', KEYS[3]) or '0')
local want = tat
if spacing * 4 < before * 3 and tat > now + spacing then
  want = now + spacing
  epoch = math.max(now, epoch + 1)
  redis.call('SET', KEYS[3], string.format('%.0f', epoch))
  redis.call('DEL', KEYS[4])
  redis.call('PUBLISH', ARGV[5], string.format('%.0f', epoch))
end
if ARGV[4] == '1' then want = math.max(want, now + untl) end
if want ~= tat then
  redis.call('SET', KEYS[2], string.format('%.0f', want))
end
return epoch
