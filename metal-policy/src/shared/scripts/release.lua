-- Releases a slot or a queue place. KEYS: holders, queue, queue expiry.
-- ARGV: id.
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
