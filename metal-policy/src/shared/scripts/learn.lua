-- Keeps the spacing learned from a reply's rate-limit headers until the
-- reset. KEYS: learned, tat. ARGV: spacing µs, µs until the reset, base
-- spacing µs, none left (1 or 0). A spacing much faster (by more than a
-- quarter) than the one in force pulls the schedule back to it, so the
-- turns of the slower pace are not waited out; none left moves the
-- schedule to the reset. Returns 1 when the schedule was pulled back.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local spacing, untl = tonumber(ARGV[1]), tonumber(ARGV[2])
local before = tonumber(redis.call('GET', KEYS[1]) or ARGV[3])
local ttl = math.max(math.floor(untl / 1000), 1)
redis.call('SET', KEYS[1], string.format('%.0f', spacing), 'PX', ttl)
local tat = tonumber(redis.call('GET', KEYS[2]) or '0')
local pulled = 0
local want = tat
if spacing * 4 < before * 3 and tat > now + spacing then
  want = now + spacing
  pulled = 1
end
if ARGV[4] == '1' then want = math.max(want, now + untl) end
if want ~= tat then
  redis.call('SET', KEYS[2], string.format('%.0f', want), 'PX',
    math.floor(math.max(want - now, 0) / 1000) + 1000)
end
return pulled
