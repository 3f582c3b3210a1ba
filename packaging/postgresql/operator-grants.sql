-- Runwatch team store: what an operator's role needs, and nothing more (README "Team store").
--
-- Run as the administrator, in the database `runwatch`, after the role that owns the database
-- (here runwatch_admin) has opened the store once, which creates Runwatch's tables as theirs:
--     runwatch --store 'postgresql://runwatch_admin@HOST:5432/runwatch?sslmode=verify-full&sslrootcert=CA'
--     psql -h HOST -U runwatch_admin -d runwatch -f operator-grants.sql
-- Operators log in as runwatch_team (createuser --pwprompt runwatch_team): they read and write
-- rows, but create, alter or drop nothing, so only the owner can upgrade the schema (open the store
-- once as runwatch_admin after installing a Runwatch with a newer schema, then run this file again).
-- LISTEN (the pushed changes) needs no grant: any role may listen.
--
-- tst_teamstore_cli runs this very file against a real server and works as runwatch_team.

GRANT CONNECT ON DATABASE runwatch TO runwatch_team;
GRANT USAGE ON SCHEMA public TO runwatch_team;
-- Nobody but the owner creates objects in the schema (PostgreSQL before 15 lets every role).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
-- run_leases (who follows a run), run_answers (an input request answered once) and run_journal
-- (who did what) are written by every operator's commands (schema 8).
GRANT SELECT, INSERT, UPDATE, DELETE ON runs, run_text, run_items, connections, settings, search_runs,
    run_leases, run_answers, run_journal TO runwatch_team;
-- Identity columns need no grant of their own; a sequence a later schema adds does.
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO runwatch_team;
-- The schema version: read (a newer store is refused), never written.
GRANT SELECT ON runwatch_schema TO runwatch_team;
GRANT EXECUTE ON FUNCTION runwatch_jsonb(text) TO runwatch_team;
