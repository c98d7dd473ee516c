-- Deleting chat messages, and the group role that may delete others' messages: `moderator`.
-- Rules: docs/database.md#deleting-chat-messages.
--
-- A deleted message stays as a tombstone: `content` emptied, `deleted_at` and `deleted_by` set.
-- So the chat shows "message removed" where it was, realtime subscribers get an UPDATE carrying
-- the empty row (the table keeps the default replica identity, so the UPDATE's old record is its
-- key, never the old body), and reports keep pointing at a row. The body itself is gone.
--
-- Who deletes: the sender her own message; an owner or a moderator of the group any message in
-- it; an admin of the app (private.is_app_admin) or the service role any message. Everyone else
-- is refused: `cannot_delete_message` P0091 when she can read the message (a member of its group),
-- `message_not_found` P0090 otherwise, the same answer as for an id that does not exist, so the
-- RPC tells a stranger nothing about other groups. Deleting a tombstone again changes nothing.
-- A deletion of someone else's message is moderation and is appended to admin_audit_log.
--
-- Direct writes cannot get around it: `authenticated` has no update or delete on the table (since
-- the groups migration), and may insert only the columns a new message has, never the tombstone's.
-- Idempotent: part of community-patch-v6.sql.

-- Tables -----------------------------------------------------------------------------------------

alter table public.group_members drop constraint if exists group_members_role_check;
alter table public.group_members add constraint group_members_role_check
  check (role in ('owner', 'moderator', 'member'));

alter table public.group_chat_messages add column if not exists deleted_at timestamptz;
alter table public.group_chat_messages add column if not exists deleted_by uuid
  references public.users (id) on delete set null;

-- A live message has a body of 1-2000 characters; a tombstone has none.
alter table public.group_chat_messages drop constraint if exists group_chat_messages_content_check;
alter table public.group_chat_messages add constraint group_chat_messages_content_check
  check (case when deleted_at is null then char_length(content) between 1 and 2000 else content = '' end);
alter table public.group_chat_messages drop constraint if exists group_chat_messages_deleted_by_check;
alter table public.group_chat_messages add constraint group_chat_messages_deleted_by_check
  check (deleted_at is not null or deleted_by is null);

create index if not exists group_chat_messages_deleted_by_idx on public.group_chat_messages (deleted_by)
  where deleted_by is not null;

-- Helpers ----------------------------------------------------------------------------------------

-- The one way a message becomes a tombstone (the RPC, report resolution and account deletion).
create or replace function private.tombstone_message(p_message_id uuid, p_deleted_by uuid)
returns public.group_chat_messages
language sql
security definer
set search_path = ''
as $$
  update public.group_chat_messages
     set content = '', deleted_at = coalesce(deleted_at, now()), deleted_by = coalesce(deleted_by, p_deleted_by)
   where id = p_message_id
  returning *
$$;
comment on function private.tombstone_message(uuid, uuid) is
  'internal: empties a chat message and marks it deleted (idempotent: a tombstone keeps its first deletion).';

-- RPCs -------------------------------------------------------------------------------------------

create or replace function public.delete_chat_message(p_message_id uuid) returns public.group_chat_messages
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := (select auth.uid());
  v_admin text := private.caller_admin_role();
  v_row public.group_chat_messages;
  v_standing text;
begin
  if v_uid is null and v_admin is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in to delete a message';
  end if;
  -- Locked, so a deletion and a report resolution on one message take turns.
  select * into v_row from public.group_chat_messages where id = p_message_id for update;
  if not found then
    raise exception 'message_not_found' using errcode = 'P0090', hint = 'no message you can see has that id';
  end if;
  if v_row.deleted_at is not null then
    return v_row;
  end if;
  v_standing := case
    when v_uid is not null and v_row.sender_id = v_uid then 'self'
    when private.has_group_role(v_row.group_id, v_uid, array['owner']) then 'group_owner'
    when private.has_group_role(v_row.group_id, v_uid, array['moderator']) then 'group_moderator'
    else v_admin
  end;
  if v_standing is null then
    if private.is_group_member(v_row.group_id, v_uid) then
      raise exception 'cannot_delete_message' using errcode = 'P0091',
        hint = 'only the sender, the group''s owners and moderators, and admins delete a message';
    end if;
    raise exception 'message_not_found' using errcode = 'P0090', hint = 'no message you can see has that id';
  end if;
  v_row := private.tombstone_message(p_message_id, v_uid);
  if v_standing <> 'self' then
    perform private.record_audit(v_standing, 'delete_message', v_row.sender_id, 'group_chat_messages',
                                 v_row.id::text, jsonb_build_object('group_id', v_row.group_id));
  end if;
  return v_row;
end
$$;
comment on function public.delete_chat_message(uuid) is
  'rpc: empties a chat message into a tombstone; the sender, the group''s owners and moderators, admins.';

-- A moderator is a member whose role an owner set; owners still are the only ones who manage the
-- group (remove members, change roles, transfer, delete). Otherwise as in the groups migration.
create or replace function public.community_set_member_role(p_group_id uuid, p_user_id uuid, p_role text)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_uid uuid := private.require_group_owner(p_group_id);
begin
  if p_role is null or p_role not in ('owner', 'moderator', 'member') then
    raise exception 'invalid_role' using errcode = 'P0004', hint = 'a role is owner, moderator or member';
  end if;
  if p_user_id = v_uid and p_role <> 'owner' then
    raise exception 'cannot_demote_self' using errcode = 'P0004', hint = 'transfer ownership instead';
  end if;
  update public.group_members set role = p_role where group_id = p_group_id and user_id = p_user_id;
  if not found then
    raise exception 'not_group_member' using errcode = 'P0001', hint = 'that user is not a member of this group';
  end if;
end
$$;

-- Grants -----------------------------------------------------------------------------------------

-- What a new message may carry; the tombstone columns are written by the definer functions only.
revoke insert on public.group_chat_messages from authenticated;
grant insert (id, group_id, sender_id, content, created_at) on public.group_chat_messages to authenticated;

revoke execute on function private.tombstone_message(uuid, uuid) from public, anon, authenticated, service_role;
revoke execute on function public.delete_chat_message(uuid) from public, anon;
grant execute on function public.delete_chat_message(uuid) to authenticated, service_role;
