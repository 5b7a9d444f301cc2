-- 0001: the metadata of the store (store.Meta): data set records, job
-- records and the jobs' selections, and the identity of the database.
-- Records are bytea, not jsonb: the store gets back the very bytes it
-- wrote (jsonb would reorder keys and drop duplicates); the columns that
-- queries need are kept beside them.

CREATE TABLE instance (
	id text PRIMARY KEY,
	created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO instance (id) VALUES (gen_random_uuid()::text);

CREATE TABLE datasets (
	id text PRIMARY KEY,
	gen integer NOT NULL,
	created_at timestamptz NOT NULL,
	record bytea NOT NULL
);

CREATE TABLE jobs (
	id text PRIMARY KEY,
	record bytea NOT NULL,
	updated_at timestamptz NOT NULL DEFAULT now()
);

-- A selection may be saved before its job's record (as with bbolt), so
-- there is no foreign key; DeleteJob removes a job's selections in the
-- same transaction as its record.
CREATE TABLE selections (
	job text NOT NULL,
	name text NOT NULL,
	record bytea NOT NULL,
	PRIMARY KEY (job, name)
);
