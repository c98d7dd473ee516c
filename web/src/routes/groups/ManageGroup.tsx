// Owner tools, each a database function that checks ownership again: join requests, invite links
// (expiry, use limit, copy, revoke), members' roles, removing a member, handing over ownership,
// editing the group, and deleting it. Destructive steps ask once, naming what happens.
import { useState } from 'preact/hooks';
import type { BoardMember } from '#contracts/community-answers.ts';
import type { GroupInvite, GroupRow } from '#contracts/community-rows.ts';
import { BusyButton } from '../../components/BusyButton.tsx';
import { FieldError } from '../../components/FieldError.tsx';
import { Avatar, nameOf } from '../../components/community/Avatar.tsx';
import { ConfirmDialog, type Confirmation } from '../../components/community/ConfirmDialog.tsx';
import {
  GroupFields,
  validateGroup,
  type GroupFieldErrors,
  type GroupFieldValues,
} from '../../components/community/GroupFields.tsx';
import { CopyButton, ErrorNotice, SuccessNotice } from '../../components/community/Notices.tsx';
import { useLoad, useRefresh } from '../../components/community/useLoad.ts';
import { TrashIcon } from '../../components/icons.tsx';
import {
  createGroupInvite,
  deleteGroup,
  listInvites,
  listJoinRequests,
  removeMember,
  respondJoinRequest,
  revokeInvite,
  setMemberRole,
  transferOwnership,
  updateGroup,
  uploadGroupIcon,
} from '../../lib/community/groups.ts';
import { useCommunityAction } from '../../lib/community/use-community-action.ts';
import { describeCommunityError } from '../../lib/community/words.ts';
import { dateTime, plural, relativeTime } from '../../lib/format.ts';

function JoinRequests({ group, onAccepted }: { group: GroupRow; onAccepted: () => void }) {
  const requests = useLoad(() => listJoinRequests(group.id), [group.id]);
  useRefresh(() => void requests.reload(), 30_000);
  const { error, run } = useCommunityAction();
  const answer = async (id: string, accept: boolean) => {
    if (!(await run(() => respondJoinRequest(id, accept)))) return;
    await requests.reload();
    if (accept) onAccepted();
  };
  const list = requests.data ?? [];
  if (group.join_policy !== 'request' && list.length === 0) return null;
  return (
    <section class="card stack" aria-labelledby="requests-title">
      <h3 id="requests-title" class="card-title">
        Join requests {list.length > 0 && <span class="badge badge-warning">{list.length}</span>}
      </h3>
      {requests.error ? (
        <ErrorNotice error={requests.error} onRetry={() => void requests.reload()} />
      ) : list.length === 0 ? (
        <p class="muted">No one is waiting. Requests appear here when students ask to join.</p>
      ) : (
        <ul class="list">
          {list.map((request) => (
            <li key={request.id} class="list-item">
              <Avatar url={request.avatarUrl} name={nameOf(request)} size="small" />
              <div class="list-main">
                <p class="list-title">
                  {nameOf(request)}
                  {request.handle && request.displayName && <span class="muted"> @{request.handle}</span>}
                </p>
                <p class="list-meta">Asked {relativeTime(Date.parse(request.createdAt))}</p>
              </div>
              <div class="row">
                <button type="button" class="button button-primary" onClick={() => void answer(request.id, true)}>
                  Accept
                </button>
                <button type="button" class="button" onClick={() => void answer(request.id, false)}>
                  Decline
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <FieldError message={error} />
    </section>
  );
}

function inviteState(invite: GroupInvite, now: number): { word: string; usable: boolean } {
  if (invite.expires_at && Date.parse(invite.expires_at) <= now) return { word: 'Expired', usable: false };
  if (invite.max_uses !== null && invite.uses_count >= invite.max_uses) return { word: 'Used up', usable: false };
  const uses =
    invite.max_uses === null
      ? `${plural(invite.uses_count, 'join')} so far, no limit`
      : `${invite.uses_count} of ${invite.max_uses} used`;
  const expiry = invite.expires_at ? `expires ${dateTime(invite.expires_at)}` : 'never expires';
  return { word: `${uses}; ${expiry}`, usable: true };
}

function Invites({ group }: { group: GroupRow }) {
  const invites = useLoad(() => listInvites(group.id), [group.id]);
  const [days, setDays] = useState('7');
  const [maxUses, setMaxUses] = useState('');
  const { busy, error, run } = useCommunityAction();
  const [fresh, setFresh] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const create = async (event: Event) => {
    event.preventDefault();
    setNotice(null);
    await run(async () => {
      setFresh(
        await createGroupInvite(
          group.id,
          days === 'never' ? null : Number(days),
          maxUses === '' ? null : Number(maxUses),
        ),
      );
      await invites.reload();
    });
  };
  const revoke = async (token: string) => {
    await run(async () => {
      await revokeInvite(token);
      if (fresh === token) setFresh(null);
      setNotice('Invite revoked: its link no longer works.');
      await invites.reload();
    });
  };
  const now = Date.now();
  return (
    <section class="card stack" id="invites" aria-labelledby="invites-title">
      <h3 id="invites-title" class="card-title">
        Invite links
      </h3>
      <p class="muted small">
        Anyone with a link can see the group's name and join
        {group.visibility === 'private' ? ', even though the group is private' : ''}. Share it only with people you want
        in.
      </p>
      <form class="inline-form" onSubmit={(event) => void create(event)}>
        <div class="field">
          <label class="field-label" for="invite-days">
            Expires after
          </label>
          <select id="invite-days" class="select" value={days} onChange={(event) => setDays(event.currentTarget.value)}>
            <option value="1">1 day</option>
            <option value="7">7 days</option>
            <option value="30">30 days</option>
            <option value="never">Never</option>
          </select>
        </div>
        <div class="field">
          <label class="field-label" for="invite-uses">
            Can be used
          </label>
          <select
            id="invite-uses"
            class="select"
            value={maxUses}
            onChange={(event) => setMaxUses(event.currentTarget.value)}
          >
            <option value="">Any number of times</option>
            <option value="1">Once</option>
            <option value="5">5 times</option>
            <option value="10">10 times</option>
            <option value="25">25 times</option>
            <option value="100">100 times</option>
          </select>
        </div>
        <BusyButton type="submit" class="button button-primary" busy={busy} busyLabel="Creating…">
          Create invite link
        </BusyButton>
      </form>
      <FieldError message={error} />
      {notice && <SuccessNotice>{notice}</SuccessNotice>}
      {invites.error ? (
        <ErrorNotice error={invites.error} onRetry={() => void invites.reload()} />
      ) : (invites.data ?? []).length === 0 ? (
        <p class="muted">No invite links yet.</p>
      ) : (
        <ul class="list invite-list">
          {(invites.data ?? []).map((invite) => {
            const state = inviteState(invite, now);
            const link = invite.link;
            return (
              <li key={invite.token} class={`list-item${invite.token === fresh ? ' is-fresh' : ''}`}>
                <div class="list-main">
                  <input
                    id={`invite-link-${invite.token}`}
                    class="input invite-link"
                    readOnly
                    value={link}
                    aria-label="Invite link"
                    onFocus={(event) => event.currentTarget.select()}
                  />
                  <p class="list-meta">
                    {invite.token === fresh && <strong>New · </strong>}
                    {state.usable ? state.word : <span class="badge badge-danger">{state.word}</span>}
                  </p>
                </div>
                <div class="row">
                  {state.usable && <CopyButton text={link} inputId={`invite-link-${invite.token}`} />}
                  <button
                    type="button"
                    class="button button-quiet"
                    onClick={() => void revoke(invite.token)}
                    aria-label={`Revoke the invite link created ${dateTime(invite.created_at)}`}
                  >
                    Revoke
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function Members({
  group,
  members,
  onChanged,
  confirm,
}: {
  group: GroupRow;
  members: readonly BoardMember[];
  onChanged: () => void;
  confirm: (next: Confirmation) => void;
}) {
  const { error, run } = useCommunityAction();
  const change = async (work: () => Promise<unknown>) => {
    if (await run(work)) onChanged();
  };
  const sorted = [...members].sort((a, b) =>
    a.role === b.role ? nameOf(a).localeCompare(nameOf(b)) : a.role === 'owner' ? -1 : 1,
  );
  return (
    <section class="card stack" id="members" aria-labelledby="members-title">
      <h3 id="members-title" class="card-title">
        Members and roles
      </h3>
      <p class="muted small">
        Owners edit the group, invite, accept requests and manage members. A group always keeps at least one owner.
      </p>
      <ul class="list">
        {sorted.map((member) => {
          const name = nameOf(member);
          // The role a press of the role button gives: a member becomes an owner, an owner a member.
          const otherRole = member.role === 'member' ? 'owner' : 'member';
          return (
            <li key={member.userId} class="list-item">
              <Avatar url={member.avatarUrl} name={name} size="small" />
              <div class="list-main">
                <p class="list-title">
                  {name}
                  {member.you && <span class="muted"> (you)</span>}
                </p>
                <p class="list-meta">
                  {member.role === 'owner' ? 'Owner' : 'Member'} · joined{' '}
                  {new Date(member.joinedAt).toLocaleDateString(undefined, { dateStyle: 'medium' })}
                </p>
              </div>
              {!member.you && (
                <div class="row member-actions">
                  <button
                    type="button"
                    class="button"
                    onClick={() => void change(() => setMemberRole(group.id, member.userId, otherRole))}
                    aria-label={`Make ${name} ${otherRole === 'owner' ? 'an owner' : 'a member'}`}
                  >
                    {otherRole === 'owner' ? 'Make owner' : 'Make member'}
                  </button>
                  <button
                    type="button"
                    class="button"
                    aria-label={`Transfer ownership to ${name}`}
                    onClick={() =>
                      confirm({
                        title: `Hand ${group.name} over to ${name}?`,
                        body: (
                          <p>
                            {name} becomes an owner and you become a plain member. You can no longer edit the group,
                            invite people or manage members unless an owner makes you an owner again.
                          </p>
                        ),
                        action: 'Transfer ownership',
                        run: async () => {
                          await transferOwnership(group.id, member.userId);
                          onChanged();
                        },
                      })
                    }
                  >
                    <span class="hide-phone">Transfer ownership</span>
                    <span class="show-phone-inline">Hand over</span>
                  </button>
                  <button
                    type="button"
                    class="button button-quiet"
                    aria-label={`Remove ${name} from the group`}
                    onClick={() =>
                      confirm({
                        title: `Remove ${name} from ${group.name}?`,
                        body: (
                          <p>
                            {name} leaves the group at once: they no longer see its board, chat or leaderboard
                            {group.visibility === 'private' ? ', and the private group disappears from their list' : ''}
                            . Their messages stay in the chat. They can come back only by{' '}
                            {group.join_policy === 'open'
                              ? 'joining again'
                              : group.join_policy === 'request'
                                ? 'asking again'
                                : 'a new invite link'}
                            .
                          </p>
                        ),
                        action: `Remove ${name}`,
                        danger: true,
                        run: async () => {
                          await removeMember(group.id, member.userId);
                          onChanged();
                        },
                      })
                    }
                  >
                    Remove
                  </button>
                </div>
              )}
            </li>
          );
        })}
      </ul>
      <FieldError message={error} />
    </section>
  );
}

function Details({ group, onSaved }: { group: GroupRow; onSaved: (next: GroupRow) => void }) {
  const [values, setValues] = useState<GroupFieldValues>({
    name: group.name,
    description: group.description,
    visibility: group.visibility,
    joinPolicy: group.join_policy,
    icon: null,
  });
  const [errors, setErrors] = useState<GroupFieldErrors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const found = validateGroup(values);
    setErrors((previous) => ({ ...found, icon: previous.icon }));
    if (found.name || found.description) return;
    setBusy(true);
    setProblem(null);
    try {
      let next = await updateGroup(group.id, {
        name: values.name.trim(),
        description: values.description.trim(),
        visibility: values.visibility,
        join_policy: values.joinPolicy,
      });
      if (values.icon) next = await uploadGroupIcon(group.id, values.icon);
      setValues({ ...values, icon: null });
      onSaved(next);
      setSaved(true);
    } catch (failure) {
      setProblem(describeCommunityError(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <details class="card disclosure">
      <summary>
        <h3 id="details-title" class="card-title">
          Edit name, description, icon and who can join
        </h3>
      </summary>
      <form class="stack" aria-labelledby="details-title" onSubmit={(event) => void save(event)} noValidate>
        <GroupFields
          idPrefix="edit-group"
          values={values}
          errors={errors}
          currentIconUrl={group.icon_url}
          onChange={(next) => {
            setValues(next);
            setSaved(false);
          }}
          onIconError={(message) => setErrors((previous) => ({ ...previous, icon: message }))}
        />
        {problem && (
          <div class="notice notice-error" role="alert">
            <p>{problem}</p>
          </div>
        )}
        {saved && <SuccessNotice>Saved. Members see the changes now.</SuccessNotice>}
        <div class="row">
          <BusyButton type="submit" class="button button-primary" busy={busy} busyLabel="Saving…">
            Save details
          </BusyButton>
        </div>
      </form>
    </details>
  );
}

export function ManageGroup({
  group,
  members,
  onGroupChanged,
  onMembersChanged,
  onDeleted,
}: {
  group: GroupRow;
  members: readonly BoardMember[];
  onGroupChanged: (next: GroupRow) => void;
  onMembersChanged: () => void;
  onDeleted: () => void;
}) {
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  return (
    <section class="stack manage" aria-labelledby="manage-title">
      <h2 id="manage-title" class="section-title">
        Manage group
      </h2>
      <JoinRequests group={group} onAccepted={onMembersChanged} />
      <Invites group={group} />
      <Members group={group} members={members} onChanged={onMembersChanged} confirm={setConfirmation} />
      <Details group={group} onSaved={onGroupChanged} />
      <section class="card stack danger-zone" aria-labelledby="delete-title">
        <h3 id="delete-title" class="card-title">
          Delete the group
        </h3>
        <p class="muted small">Deleting removes the group for everyone. There is no undo.</p>
        <div class="row">
          <button
            type="button"
            class="button button-danger"
            onClick={() =>
              setConfirmation({
                title: `Delete ${group.name}?`,
                body: (
                  <>
                    <p>
                      This deletes the group for all {plural(group.member_count, 'member')}: its chat history, invite
                      links and join requests go with it, and nobody can open it again.
                    </p>
                    <p class="muted small">Members keep their own study sessions and stats.</p>
                  </>
                ),
                action: 'Delete group',
                danger: true,
                run: async () => {
                  await deleteGroup(group.id);
                  onDeleted();
                },
              })
            }
          >
            <TrashIcon size={18} />
            Delete group
          </button>
        </div>
      </section>
      <ConfirmDialog confirmation={confirmation} onClose={() => setConfirmation(null)} />
    </section>
  );
}
