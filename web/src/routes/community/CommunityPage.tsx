// /community: the student's groups, discovery (public groups and the student's private ones,
// searched and paged through community_discover_groups) and creating a group. Joining happens
// right from the list: open groups at once, request-only groups by request (cancellable),
// invite-only groups only through a link.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { z } from 'zod';
import type { DiscoveredGroup } from '#contracts/community-answers.ts';
import { GroupFacts } from '../../components/community/GroupFacts.tsx';
import { FieldError } from '../../components/FieldError.tsx';
import { Avatar } from '../../components/community/Avatar.tsx';
import { SearchIcon, ShieldIcon } from '../../components/community/icons.tsx';
import { ErrorNotice } from '../../components/community/Notices.tsx';
import { useLoad } from '../../components/community/useLoad.ts';
import { SlowNote } from '../../components/Skeleton.tsx';
import { CommunityIcon, PlusIcon } from '../../components/icons.tsx';
import { client, currentUserId, rows } from '../../lib/community/backend.ts';
import { cancelJoinRequest, discoverGroups, joinGroup } from '../../lib/community/groups.ts';
import { readEnrollment } from '../../lib/community/privacy.ts';
import { CreateGroupDialog } from './CreateGroupDialog.tsx';
import '../../styles/community/shared.css';
import '../../styles/community/groups.css';
import { useAction } from '../../components/community/useAction.ts';

async function pendingGroupIds(): Promise<Set<string>> {
  const userId = await currentUserId();
  if (!userId) return new Set();
  const pending = await rows(
    (await client()).from('community_join_requests').select('group_id').eq('user_id', userId).eq('status', 'pending'),
    z.object({ group_id: z.string() }),
  );
  return new Set(pending.map((row) => row.group_id));
}

function GroupAction({
  group,
  pending,
  onChange,
}: {
  group: DiscoveredGroup;
  pending: boolean;
  onChange: (next: { member?: boolean; pending?: boolean }) => void;
}) {
  const { route } = useLocation();
  const { busy, error, act } = useAction();
  let control;
  if (group.is_member) {
    control = (
      <a class="button" href={`/groups/${group.id}`}>
        Open
      </a>
    );
  } else if (pending) {
    control = (
      <button
        type="button"
        class="button"
        disabled={busy}
        onClick={() =>
          void act(async () => {
            await cancelJoinRequest(group.id);
            onChange({ pending: false });
          })
        }
        aria-label={`Cancel your request to join ${group.name}`}
      >
        Cancel request
      </button>
    );
  } else if (group.join_policy === 'invite') {
    control = <span class="small muted group-invite-only">Invite link only</span>;
  } else {
    control = (
      <button
        type="button"
        class="button"
        disabled={busy}
        aria-label={`${group.join_policy === 'open' ? 'Join' : 'Ask to join'} ${group.name}`}
        onClick={() =>
          void act(async () => {
            const answer = await joinGroup(group.id);
            if (answer === 'member') {
              onChange({ member: true });
              route(`/groups/${group.id}`);
            } else onChange({ pending: true });
          })
        }
      >
        {group.join_policy === 'open' ? 'Join' : 'Ask to join'}
      </button>
    );
  }
  return (
    <div class="group-action">
      {pending && !group.is_member && <span class="badge badge-warning">Request sent</span>}
      {control}
      <FieldError message={error} />
    </div>
  );
}

function GroupRowItem({
  group,
  pending,
  onChange,
}: {
  group: DiscoveredGroup;
  pending: boolean;
  onChange: (next: { member?: boolean; pending?: boolean }) => void;
}) {
  return (
    <li class="group-row">
      <Avatar url={group.icon_url} name={group.name} square />
      <div class="group-row-main">
        <p class="group-row-title">
          <a href={`/groups/${group.id}`}>{group.name}</a>
        </p>
        {group.description && <p class="group-row-description">{group.description}</p>}
        <p class="group-row-meta small muted">
          <GroupFacts group={group} />
          {group.is_member && (
            <>
              <span aria-hidden="true"> · </span>
              <strong class="member-mark">You are a member</strong>
            </>
          )}
        </p>
      </div>
      <GroupAction group={group} pending={pending} onChange={onChange} />
    </li>
  );
}

function useDebounced(value: string, ms: number): string {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

function ListSkeleton() {
  return (
    <ul class="group-list" aria-busy="true" aria-label="Loading groups">
      {[0, 1, 2].map((index) => (
        <li key={index} class="group-row">
          <span class="skeleton c-avatar c-avatar-medium c-avatar-square" />
          <div class="group-row-main stack-tight">
            <div class="skeleton skeleton-line" />
            <div class="skeleton skeleton-line skeleton-long" />
          </div>
        </li>
      ))}
    </ul>
  );
}

export default function CommunityPage() {
  document.title = 'Community · studyhall';
  const { route } = useLocation();
  const [search, setSearch] = useState('');
  const term = useDebounced(search, 300);
  const [creating, setCreating] = useState(false);
  const [extra, setExtra] = useState<DiscoveredGroup[]>([]);
  const [page, setPage] = useState(0);
  const [moreLoading, setMoreLoading] = useState(false);
  const [moreError, setMoreError] = useState<unknown>(null);
  /** Whether another page exists after the last one loaded by "Show more" (null: none loaded yet). */
  const [moreAfter, setMoreAfter] = useState<boolean | null>(null);
  const first = useLoad(
    async () => ({ found: await discoverGroups(term, 0), pending: await pendingGroupIds() }),
    [term],
  );
  const enrollment = useLoad(readEnrollment, []);
  const [overrides, setOverrides] = useState<Record<string, { member?: boolean; pending?: boolean }>>({});
  useEffect(() => {
    setExtra([]);
    setPage(0);
    setMoreAfter(null);
    setOverrides({});
  }, [term]);

  const all = useMemo(
    () =>
      [...(first.data?.found.groups ?? []), ...extra]
        .filter((group, index, list) => list.findIndex((other) => other.id === group.id) === index)
        .map((group) => ({ ...group, is_member: overrides[group.id]?.member ?? group.is_member })),
    [first.data, extra, overrides],
  );
  const hasMore = moreAfter ?? first.data?.found.hasMore ?? false;
  const pendingOf = (id: string) => overrides[id]?.pending ?? first.data?.pending.has(id) ?? false;
  const mine = all.filter((group) => group.is_member);
  const others = all.filter((group) => !group.is_member);

  const loadMore = async () => {
    setMoreLoading(true);
    setMoreError(null);
    try {
      const next = await discoverGroups(term, page + 1);
      setExtra((previous) => [...previous, ...next.groups]);
      setPage(page + 1);
      setMoreAfter(next.hasMore);
    } catch (failure) {
      setMoreError(failure);
    } finally {
      setMoreLoading(false);
    }
  };

  return (
    <div class="page community-page">
      <div class="page-head">
        <div>
          <h1 class="page-title">Community</h1>
          <p class="page-lead">Study alongside others: join a group, or start your own and invite friends.</p>
        </div>
        <button type="button" class="button button-primary" onClick={() => setCreating(true)}>
          <PlusIcon size={18} />
          Create a group
        </button>
      </div>

      {enrollment.data && !enrollment.data.consent && (
        <div class="notice callout">
          <ShieldIcon size={20} />
          <p>
            You appear offline to others while you study. Turn on community sharing to show your groups and buddies when
            you focus.
          </p>
          <a class="button" href="/settings/privacy">
            Privacy settings
          </a>
        </div>
      )}

      <form class="search-field" role="search" onSubmit={(event) => event.preventDefault()}>
        <label class="field-label" for="group-search">
          Find groups
        </label>
        <div class="search-box">
          <SearchIcon size={18} />
          <input
            id="group-search"
            class="input"
            type="search"
            placeholder="Search by name, e.g. anatomy"
            value={search}
            onInput={(event) => setSearch(event.currentTarget.value)}
            autoComplete="off"
          />
        </div>
      </form>

      {first.error ? (
        <ErrorNotice error={first.error} onRetry={() => void first.reload()} />
      ) : !first.data ? (
        <>
          <ListSkeleton />
          <SlowNote what="Loading groups" />
        </>
      ) : all.length === 0 ? (
        <div class="empty">
          <CommunityIcon size={28} />
          <strong>{term ? `No groups match “${term}”` : 'No groups yet'}</strong>
          <p>
            {term
              ? 'Try another word, or create your own group and invite others.'
              : 'Find one or create your own: a group shows who is studying right now and has its own chat.'}
          </p>
          <button type="button" class="button" onClick={() => setCreating(true)}>
            Create a group
          </button>
        </div>
      ) : (
        <>
          {mine.length > 0 && (
            <section class="stack-tight" aria-labelledby="mine-title">
              <h2 id="mine-title" class="section-title">
                {term ? 'Your groups that match' : 'Your groups'}
              </h2>
              <ul class="group-list card">
                {mine.map((group) => (
                  <GroupRowItem key={group.id} group={group} pending={false} onChange={() => undefined} />
                ))}
              </ul>
            </section>
          )}
          <section class="stack-tight" aria-labelledby="discover-title">
            <h2 id="discover-title" class="section-title">
              {term ? 'Other groups that match' : 'Groups to join'}
            </h2>
            {others.length === 0 ? (
              <p class="muted">
                {term ? 'No other group matches.' : 'You are in every group there is. Start another one?'}
              </p>
            ) : (
              <ul class="group-list card">
                {others.map((group) => (
                  <GroupRowItem
                    key={group.id}
                    group={group}
                    pending={pendingOf(group.id)}
                    onChange={(next) =>
                      setOverrides((previous) => ({ ...previous, [group.id]: { ...previous[group.id], ...next } }))
                    }
                  />
                ))}
              </ul>
            )}
            {moreError !== null && <ErrorNotice error={moreError} onRetry={() => void loadMore()} />}
            {hasMore && (
              <div>
                <button type="button" class="button" disabled={moreLoading} onClick={() => void loadMore()}>
                  {moreLoading ? 'Loading…' : 'Show more groups'}
                </button>
              </div>
            )}
          </section>
        </>
      )}

      <CreateGroupDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(id) => route(`/groups/${id}`)}
      />
    </div>
  );
}
