-- The µs left of the shared pause. KEYS: pause.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local left = tonumber(redis.call('GET', KEYS[1]) or '0') - now
if left < 0 then return 0 end
return math.floor(left)
