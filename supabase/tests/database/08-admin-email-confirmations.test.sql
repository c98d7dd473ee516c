-- The owner's confirmations of ADMIN_EMAIL accounts: only the service role reads or writes them.
-- A student cannot confirm herself (insert), see who is confirmed, or change or remove a
-- confirmation; signed-out clients neither. Deleting the account removes its confirmation, so an
-- account registered again with the same address starts unconfirmed.
begin;
select plan(10);

select tests.create_user('owner', 'owner@example.com');
select tests.create_user('mallory', 'mallory@example.com');

select tests.authenticate_as_service_role();
insert into public.admin_email_confirmations (user_id, email, confirmed_by)
  values (tests.get_user_id('owner'), 'owner@example.com', 'secret');
select is((select count(*)::int from public.admin_email_confirmations), 1, 'the service role records a confirmation');
select throws_ok($$insert into public.admin_email_confirmations (user_id, email, confirmed_by) values (tests.get_user_id('mallory'), 'Mallory@Example.com', 'secret')$$,
  '23514', null, 'an address is stored in lower case only');

select tests.authenticate_as('mallory');
select throws_ok($$select count(*) from public.admin_email_confirmations$$, '42501', null, 'a student cannot read confirmations, not even whose');
select throws_ok($$insert into public.admin_email_confirmations (user_id, email, confirmed_by) values (auth.uid(), 'mallory@example.com', 'secret')$$,
  '42501', null, 'a student cannot confirm her own account');
select throws_ok($$update public.admin_email_confirmations set user_id = auth.uid()$$, '42501', null, 'a student cannot move a confirmation to her account');
select throws_ok($$delete from public.admin_email_confirmations$$, '42501', null, 'a student cannot remove a confirmation');

select tests.clear_authentication();
select throws_ok($$select count(*) from public.admin_email_confirmations$$, '42501', null, 'a signed-out client cannot read confirmations');
select throws_ok($$insert into public.admin_email_confirmations (user_id, email, confirmed_by) values (tests.get_user_id('mallory'), 'mallory@example.com', 'x')$$,
  '42501', null, 'a signed-out client cannot confirm anyone');

reset role;
select ok((select relrowsecurity from pg_class where oid = 'public.admin_email_confirmations'::regclass), 'row-level security is on');
delete from auth.users where id = tests.get_user_id('owner');
select is((select count(*)::int from public.admin_email_confirmations), 0, 'deleting the account removes its confirmation');

select * from finish();
rollback;
