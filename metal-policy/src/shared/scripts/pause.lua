-- Pauses every process. KEYS: pause, tat. ARGV: pause µs. Returns the µs
-- the pause lasts from now (it never shortens an existing one).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local untl = math.max(now + tonumber(ARGV[1]), tonumber(redis.call('GET', KEYS[1]) or '0'))
redis.call('SET', KEYS[1], string.format('%.0f', untl))
local tat = tonumber(redis.call('GET', KEYS[2]) or '0')
if tat < untl then
  redis.call('SET', KEYS[2], string.format('%.0f', untl))
end
return math.floor(untl - now)
