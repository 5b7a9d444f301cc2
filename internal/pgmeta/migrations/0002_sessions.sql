-- 0002: the login sessions of the access token's form (auth.Guard), so
-- that a session opened by one web process is known to every other and
-- ended everywhere at logout. The key is the SHA-256 of the session id
-- (the cookie's value), never the id itself.

CREATE TABLE sessions (
	key bytea PRIMARY KEY,
	expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_expires_at ON sessions (expires_at);
