-- Stored objects name only accounts that may still write: a row of storage.objects whose owner
-- (`owner` or `owner_id`) is set must name an existing account that is not banned, whoever writes it.
-- Rules: docs/database.md#storage-buckets (object owners), SECURITY.md (signed upload URLs).
--
-- A signed upload URL carries its signer as the owner of the object it writes, for two hours, and
-- the storage server writes that row with its own rights, not the signer's. A URL signed before the
-- account was deleted (or banned) therefore still wrote: an object naming an account that no longer
-- exists, served from a public bucket, which the account deletion could not catch (it ran before
-- the object existed). The rule is a trigger on storage.objects, so it holds for every writer:
-- localbase, a hosted project's storage-api, SQL as the service role or the database owner. It
-- raises 42501, the SQLSTATE Storage answers as its own AccessDenied (403), as for a policy refusal.
--
-- The owner's auth.users row is locked `for key share` while the object is written. A deletion of
-- the account waits for that write to commit and then finds the object (storage_objects_remain);
-- a write that waited for a deletion finds no account. A ban changes no key, so it does not wait:
-- a write already under way when the ban is set may still land.
-- Idempotent: part of community-patch-v6.sql.

-- Helpers ----------------------------------------------------------------------------------------

create or replace function private.require_active_object_owner() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_owner_id uuid;
  v_owner uuid;
begin
  -- owner_id is text (storage-api writes the JWT's sub there); one that is no uuid names no account.
  if new.owner_id is not null then
    if new.owner_id !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
      raise exception 'storage_owner_inactive' using errcode = '42501',
        hint = 'the owner of a stored object must be an account';
    end if;
    v_owner_id := new.owner_id::uuid;
  end if;
  for v_owner in select distinct o from unnest(array[new.owner, v_owner_id]) o where o is not null loop
    perform 1 from auth.users u
     where u.id = v_owner and u.deleted_at is null and not coalesce(u.banned_until > now(), false)
       for key share;
    if not found then
      raise exception 'storage_owner_inactive' using errcode = '42501',
        hint = 'the account that would own this object no longer exists or is banned';
    end if;
  end loop;
  return new;
end
$$;
comment on function private.require_active_object_owner() is
  'internal: a written storage object names only an existing account that is not banned (docs/database.md#storage-buckets).';

-- Triggers ---------------------------------------------------------------------------------------

drop trigger if exists require_active_object_owner on storage.objects;
create trigger require_active_object_owner before insert or update of owner, owner_id on storage.objects
  for each row execute function private.require_active_object_owner();

-- Grants -----------------------------------------------------------------------------------------

revoke execute on function private.require_active_object_owner() from public, anon, authenticated, service_role;
