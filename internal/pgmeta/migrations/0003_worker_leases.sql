-- 0003: the leases of the processes of the shared job queue (package
-- sharedjobs). Each process renews its own row every few seconds; a
-- queue entry (river_job) whose last attempt was made by a process whose
-- lease has lapsed, or that has none, is taken back by whichever process
-- looks first and run again by another. expires_at is on the database's
-- clock, so that the machines' clocks need not agree.

CREATE TABLE worker_leases (
	id text PRIMARY KEY,
	expires_at timestamptz NOT NULL
);
