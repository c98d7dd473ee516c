-- A stored object names only an account that may still write (the trigger
-- require_active_object_owner on storage.objects): an object whose owner or owner_id is a deleted,
-- soft-deleted or banned account, or no account at all, is refused with 42501 storage_owner_inactive,
-- whoever writes it (a student, the service role, the database owner as a storage server would);
-- objects without an owner, a ban that has run out, and writes that leave the owner alone still go.
begin;
select plan(17);

select tests.create_user('owner_active');
select tests.create_user('owner_gone');
select tests.create_user('owner_banned');
select tests.create_user('owner_ban_over');
select tests.create_user('owner_soft_deleted');

create temp table people as
select name, tests.get_user_id(name) as id
from unnest(array['owner_active', 'owner_gone', 'owner_banned', 'owner_ban_over', 'owner_soft_deleted']) name;
grant select on people to public;

-- The banned student's file, stored while she was in good standing.
select tests.authenticate_as('owner_banned');
insert into storage.objects (bucket_id, name, owner, owner_id)
values ('study-material', auth.uid() || '/before-ban.pdf', auth.uid(), auth.uid()::text);

reset role;
select set_config('request.jwt.claims', '', true);
delete from auth.users where id = (select id from people where name = 'owner_gone');
update auth.users set banned_until = now() + interval '1 day' where id = (select id from people where name = 'owner_banned');
update auth.users set banned_until = now() - interval '1 minute' where id = (select id from people where name = 'owner_ban_over');
update auth.users set deleted_at = now() where id = (select id from people where name = 'owner_soft_deleted');

-- What a storage server writes for a signed upload URL: the row, as itself, with the signer as owner.
create function pg_temp.store_for(p_name text, p_file text) returns void
language sql as $$
  insert into storage.objects (bucket_id, name, owner, owner_id)
  select 'study-material', id || '/' || p_file, id, id::text from people where name = p_name
$$;

-- Grants -----------------------------------------------------------------------------------------
select lives_ok($$select pg_temp.store_for('owner_active', 'signed.pdf')$$,
  'an object owned by an active account is stored');
select lives_ok($$select pg_temp.store_for('owner_ban_over', 'after-ban.pdf')$$,
  'a ban that has run out no longer stops it');
select lives_ok($$insert into storage.objects (bucket_id, name) values ('study-material', 'shared/no-owner.pdf')$$,
  'an object without an owner (the service role''s uploads) is stored');
select tests.authenticate_as('owner_active');
select lives_ok($$insert into storage.objects (bucket_id, name, owner, owner_id)
                  values ('avatars', auth.uid() || '/me.png', auth.uid(), auth.uid()::text)$$,
  'a student uploads into her own folder as before');

-- Denials ----------------------------------------------------------------------------------------
reset role;
select throws_ok($$select pg_temp.store_for('owner_gone', 'late.pdf')$$, '42501', 'storage_owner_inactive',
  'an object owned by a deleted account is refused, even to the database owner');
select throws_ok($$insert into storage.objects (bucket_id, name, owner_id)
                   select 'avatars', id || '/face.png', id::text from people where name = 'owner_gone'$$,
  '42501', 'storage_owner_inactive', 'naming her by owner_id alone is refused too');
select throws_ok($$select pg_temp.store_for('owner_banned', 'while-banned.pdf')$$, '42501', 'storage_owner_inactive',
  'an object owned by a banned account is refused');
select throws_ok($$select pg_temp.store_for('owner_soft_deleted', 'soft.pdf')$$, '42501', 'storage_owner_inactive',
  'an object owned by a soft-deleted account (deleted_at) is refused');
select throws_ok($$insert into storage.objects (bucket_id, name, owner, owner_id)
                   select 'study-material', a.id || '/mixed.pdf', a.id, g.id::text
                   from people a, people g where a.name = 'owner_active' and g.name = 'owner_gone'$$,
  '42501', 'storage_owner_inactive', 'an active owner does not carry an owner_id that names a deleted account');
select throws_ok($$insert into storage.objects (bucket_id, name, owner_id) values ('study-material', 'x/y.pdf', 'not-a-user')$$,
  '42501', 'storage_owner_inactive', 'an owner_id that is no account id is refused');
select tests.authenticate_as_service_role();
select throws_ok($$select pg_temp.store_for('owner_gone', 'service.pdf')$$, '42501', 'storage_owner_inactive',
  'the service role cannot store one for a deleted account either');
select throws_ok($$update storage.objects set owner = (select id from people where name = 'owner_gone'),
                                           owner_id = (select id::text from people where name = 'owner_gone')
                   where name = 'shared/no-owner.pdf'$$,
  '42501', 'storage_owner_inactive', 'nor hand an existing object to a deleted account');
select throws_ok($$update storage.objects set owner = owner, version = 'replaced'
                   where name like '%/before-ban.pdf'$$,
  '42501', 'storage_owner_inactive', 'an upsert that names the banned owner again is refused');

reset role;
select is((select count(*)::int from storage.objects o join people p on p.id = o.owner or p.id::text = o.owner_id
           where p.name in ('owner_gone', 'owner_soft_deleted')), 0,
  'no object names the deleted accounts');
select is((select count(*)::int from storage.objects o join people p on p.id = o.owner
           where p.name = 'owner_banned'), 1, 'the banned account keeps only the file stored before the ban');

-- Writes that leave the owner alone ------------------------------------------------------------
select tests.authenticate_as_service_role();
select lives_ok($$update storage.objects set metadata = '{"checked": true}' where name like '%/before-ban.pdf'$$,
  'a write that leaves the owner alone still works on a banned account''s file');
select lives_ok($$delete from storage.objects where name like '%/before-ban.pdf'$$,
  'and her files can be deleted (before her account is)');

select * from finish();
rollback;
