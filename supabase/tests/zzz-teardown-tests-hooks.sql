-- The last file of the suite (its path sorts after database/*): drops the tests.* helpers that
-- 000-setup-tests-hooks.sql committed, so a run leaves the database as it found it. Among the
-- helpers is a SECURITY DEFINER function that writes auth.users; it must not outlive the run on a
-- linked project. (`supabase test db` drops pgTAP itself when it was the one that created it.)
set client_min_messages = warning;
drop schema if exists tests cascade;
reset client_min_messages;

begin;
select plan(1);

select hasnt_schema('tests', 'the tests schema and every helper in it are gone');

select * from finish();
rollback;
