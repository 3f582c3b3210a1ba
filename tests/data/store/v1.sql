-- A run store as Runwatch schema 1 wrote it (PRAGMA user_version = 1). Used by tst_runstore to
-- check the step-by-step migration to the current schema. One statement per line.
CREATE TABLE runs (local_id TEXT PRIMARY KEY, connection TEXT, backend TEXT, base_url TEXT, remote_id TEXT, status TEXT, raw_status TEXT, title TEXT, prompt TEXT, model TEXT, created_at TEXT, updated_at TEXT, finished_at TEXT, token TEXT, primary_text TEXT, secondary TEXT, error TEXT, input TEXT, capabilities INTEGER, reconciliations INTEGER);
CREATE INDEX runs_remote_id ON runs(remote_id);
INSERT INTO runs VALUES ('a1b2c3d4','sim','openai','http://127.0.0.1:8080/v1','resp_old1','completed','completed','Write a haiku','Write a haiku','gpt-5','2026-01-02T10:00:00.000Z','2026-01-02T10:01:00.000Z','2026-01-02T10:01:00.000Z','{"remote_id":"resp_old1","sequence":11,"streamable":true}','Silent circuits hum','[{"id":"","kind":"status","text":"Queued → Completed","at":"2026-01-02T10:01:00.000Z","done":true}]','','',63,0);
INSERT INTO runs VALUES ('e5f6a7b8','sim','openai','http://127.0.0.1:8080/v1','resp_old2','in_progress','in_progress','Long novel','Long novel about otters','gpt-5','2026-01-03T09:00:00.000Z','2026-01-03T09:05:00.000Z','','{"remote_id":"resp_old2","sequence":42,"streamable":true}','Once upon','[]','{"kind":"network","message":"dropped","retryable":true}','',63,0);
PRAGMA user_version = 1;
