// /groups/:id. What a student sees depends on the database alone: a group they cannot read (it
// does not exist, or it is private and they are not in it) is one plain answer; a public group
// they are not in shows how to join; a member gets the live board first, then the chat, then the
// leaderboard and activity, and owners the tools to manage it. If the student loses access while
// the page is open (removed, or the group deleted), the page says so.
import { useEffect, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import type { GroupRole, GroupRow } from '#contracts/community-rows.ts';
import { GroupFacts } from '../../components/community/GroupFacts.tsx';
import { FieldError } from '../../components/FieldError.tsx';
import { AlertBell } from '../../components/community/AlertBell.tsx';
import { Avatar } from '../../components/community/Avatar.tsx';
import { ConfirmDialog, type Confirmation } from '../../components/community/ConfirmDialog.tsx';
import { DoorIcon, FlagIcon, LinkIcon } from '../../components/community/icons.tsx';
import { ErrorNotice } from '../../components/community/Notices.tsx';
import { ReportDialog, type ReportSubject } from '../../components/community/ReportDialog.tsx';
import { useLoad, useRefresh } from '../../components/community/useLoad.ts';
import { usePresenceFeed } from '../../components/community/usePresenceFeed.ts';
import { PageSkeleton } from '../../components/Skeleton.tsx';
import { alertFor, listAlerts } from '../../lib/community/alerts.ts';
import { CommunityError } from '../../lib/community/backend.ts';
import {
  cancelJoinRequest,
  joinGroup,
  leaveGroup,
  readBoard,
  readGroup,
  standingIn,
  type Standing,
} from '../../lib/community/groups.ts';
import { readEnrollment } from '../../lib/community/privacy.ts';
import { Board } from './Board.tsx';
import { Chat } from './Chat.tsx';
import { ManageGroup } from './ManageGroup.tsx';
import { MyReports } from './MyReports.tsx';
import { Rankings } from './Rankings.tsx';
import '../../styles/community/shared.css';
import '../../styles/community/group-page.css';
import '../../styles/community/group-board.css';
import '../../styles/community/group-chat.css';
import '../../styles/community/group-rankings.css';
import '../../styles/community/group-owner.css';
import '../../styles/community/group-reports.css';
import { useAction } from '../../components/community/useAction.ts';

/**
 * Board refresh, realtime or not. While realtime is up, every change to a member's presence
 * re-reads the board at once; the poll still catches what no presence row announces: a member
 * removed (her open page must say so), a new member, a heartbeat gone stale where no expiry sweep
 * runs, today's minutes.
 */
const BOARD_REFRESH_MS = 15_000;
/** The "for 25 min" on each tile moves on without a read. */
const CLOCK_TICK_MS = 30_000;

function Unavailable() {
  return (
    <div class="page">
      <h1 class="page-title">This group does not exist or is private</h1>
      <p class="muted">
        Private groups are visible to their members only. If someone wants you in it, ask them for an invite link.
      </p>
      <p>
        <a class="button button-primary" href="/community">
          Find groups
        </a>
      </p>
    </div>
  );
}

function LostAccess({ name }: { name: string }) {
  return (
    <div class="page">
      <h1 class="page-title">You are no longer a member of {name}</h1>
      <p class="muted">
        An owner removed you, or the group was deleted. Its board, chat and leaderboard are closed to you now.
      </p>
      <p>
        <a class="button button-primary" href="/community">
          Back to Community
        </a>
      </p>
    </div>
  );
}

function GroupHeading({ group, children }: { group: GroupRow; children?: preact.ComponentChildren }) {
  return (
    <header class="group-header">
      <Avatar url={group.icon_url} name={group.name} size="large" square />
      <div class="group-header-main">
        <h1 class="page-title group-title">{group.name}</h1>
        <p class="small muted group-meta">
          <GroupFacts group={group} />
        </p>
        {group.description && <p class="group-description">{group.description}</p>}
      </div>
      {children && <div class="group-actions">{children}</div>}
    </header>
  );
}

function OutsideView({
  group,
  standing,
  onJoined,
  onStanding,
  onReport,
}: {
  group: GroupRow;
  standing: Standing;
  onJoined: () => void;
  onStanding: (next: Standing) => void;
  onReport: () => void;
}) {
  const { busy, error, act } = useAction();
  return (
    <div class="page">
      <GroupHeading group={group} />
      <section class="card stack join-card" aria-labelledby="join-title">
        <h2 id="join-title" class="card-title">
          {standing.kind === 'pending' ? 'Your request is waiting' : 'Join this group'}
        </h2>
        {standing.kind === 'pending' ? (
          <>
            <p>
              An owner of {group.name} will accept or decline it. You will see the group in Community once you are in.
            </p>
            <div class="row">
              <button
                type="button"
                class="button"
                disabled={busy}
                onClick={() =>
                  void act(async () => {
                    await cancelJoinRequest(group.id);
                    onStanding({ kind: 'outside' });
                  })
                }
              >
                Cancel request
              </button>
            </div>
          </>
        ) : group.join_policy === 'invite' ? (
          <p>This group is joined with an invite link only. Ask one of its owners for a link.</p>
        ) : (
          <>
            <p>
              {group.join_policy === 'open'
                ? 'Anyone can join. Members see who is studying now, chat, and appear on the leaderboard.'
                : 'An owner accepts or declines requests to join.'}
            </p>
            <div class="row">
              <button
                type="button"
                class="button button-primary"
                disabled={busy}
                onClick={() =>
                  void act(async () => {
                    const answer = await joinGroup(group.id);
                    if (answer === 'member') onJoined();
                    else onStanding({ kind: 'pending' });
                  })
                }
              >
                {group.join_policy === 'open' ? 'Join group' : 'Ask to join'}
              </button>
            </div>
          </>
        )}
        <FieldError message={error} />
      </section>
      <p>
        <button type="button" class="button button-quiet" onClick={onReport}>
          <FlagIcon size={16} />
          Report this group
        </button>
      </p>
    </div>
  );
}

function MemberView({
  initial,
  role,
  onLost,
  onLeft,
}: {
  initial: GroupRow;
  role: GroupRole;
  onLost: () => void;
  onLeft: () => void;
}) {
  const [group, setGroup] = useState(initial);
  const [report, setReport] = useState<ReportSubject | null>(null);
  // Bumped when the report dialog closes, so "Your reports" shows what was just sent.
  const [reportsVersion, setReportsVersion] = useState(0);
  const [removedMessages, setRemovedMessages] = useState<ReadonlySet<string>>(new Set());
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  const [now, setNow] = useState(Date.now());
  const board = useLoad(() => readBoard(group.id), [group.id]);
  const alerts = useLoad(listAlerts, []);
  const enrollment = useLoad(readEnrollment, []);
  const refresh = async () => {
    setNow(Date.now());
    await board.reload();
    const fresh = await readGroup(group.id).catch(() => group);
    if (fresh) setGroup(fresh);
  };
  const feed = usePresenceFeed(
    (change) => change.userId === null || (board.data ?? []).some((member) => member.userId === change.userId),
    async () => {
      await board.reload();
      setNow(Date.now());
    },
  );
  useRefresh(() => void refresh(), BOARD_REFRESH_MS);
  useRefresh(() => setNow(Date.now()), CLOCK_TICK_MS);
  useEffect(() => {
    if (board.error instanceof CommunityError && board.error.code === 'not_group_member') onLost();
  }, [board.error]);

  const members = board.data ?? [];
  const me = members.find((member) => member.you);
  const myRole = me?.role ?? role;
  const owners = members.filter((member) => member.role === 'owner').length;
  const alertsOn = alertFor(alerts.data ?? [], 'group', group.id);

  const leave = () => {
    if (myRole === 'owner' && owners <= 1) {
      setConfirmation({
        title: 'Make someone else an owner first',
        body: (
          <p>
            You are the only owner of {group.name}, so you cannot leave yet. In Members and roles below, make another
            member an owner (or transfer ownership), then leave. Or delete the group if it is no longer needed.
          </p>
        ),
        action: 'Show members',
        run: async () => {
          document.getElementById('members')?.scrollIntoView({ behavior: 'smooth' });
        },
      });
      return;
    }
    setConfirmation({
      title: `Leave ${group.name}?`,
      body: (
        <p>
          You stop seeing its board, chat and leaderboard, and its members stop seeing you there. Your messages stay. To
          come back you need to{' '}
          {group.join_policy === 'open' && group.visibility === 'public'
            ? 'join again'
            : group.join_policy === 'request' && group.visibility === 'public'
              ? 'ask again'
              : 'get a new invite link'}
          .
        </p>
      ),
      action: 'Leave group',
      danger: true,
      run: async () => {
        await leaveGroup(group.id);
        onLeft();
      },
    });
  };

  return (
    <div class="page page-wide group-page">
      <GroupHeading group={group}>
        <AlertBell
          type="group"
          id={group.id}
          name={group.name}
          enabled={alertsOn}
          onChanged={() => void alerts.reload()}
        />
        {myRole === 'owner' && (
          <a class="button" href="#invites">
            <LinkIcon size={18} />
            Invite people
          </a>
        )}
        <button type="button" class="button" onClick={leave}>
          <DoorIcon size={18} />
          Leave
        </button>
        <button
          type="button"
          class="button button-quiet icon-button"
          aria-label={`Report ${group.name}`}
          title="Report this group"
          onClick={() => setReport({ type: 'group', id: group.id, what: group.name })}
        >
          <FlagIcon size={18} />
        </button>
      </GroupHeading>

      {board.error && !(board.error instanceof CommunityError && board.error.code === 'not_group_member') && (
        <ErrorNotice error={board.error} onRetry={() => void board.reload()} />
      )}
      <div class="group-live">
        {board.data ? (
          <Board
            members={members}
            now={now}
            consented={enrollment.data?.consent ?? null}
            live={feed === 'live'}
            onReport={setReport}
          />
        ) : (
          <section class="card board" aria-busy="true" aria-label="Loading who is studying">
            <div class="skeleton skeleton-line" />
            <div class="board-tiles">
              {[0, 1].map((index) => (
                <div key={index} class="skeleton skeleton-tile" />
              ))}
            </div>
          </section>
        )}
        <Chat
          groupId={group.id}
          members={members}
          onLost={onLost}
          onReport={setReport}
          onRemoved={setRemovedMessages}
        />
      </div>
      <MyReports
        groupId={group.id}
        groupName={group.name}
        members={members}
        removed={removedMessages}
        version={reportsVersion}
      />
      <Rankings groupId={group.id} meId={me?.userId ?? null} />
      {myRole === 'owner' && board.data && (
        <ManageGroup
          group={group}
          members={members}
          onGroupChanged={setGroup}
          onMembersChanged={() => void refresh()}
          onDeleted={onLeft}
        />
      )}
      <ReportDialog
        subject={report}
        onClose={() => {
          setReport(null);
          setReportsVersion((version) => version + 1);
        }}
      />
      <ConfirmDialog confirmation={confirmation} onClose={() => setConfirmation(null)} />
    </div>
  );
}

export default function GroupPage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const id = params.id ?? '';
  const [lost, setLost] = useState(false);
  const [report, setReport] = useState<ReportSubject | null>(null);
  const loaded = useLoad(async () => {
    const group = await readGroup(id);
    return group ? { group, standing: await standingIn(id) } : null;
  }, [id]);
  useEffect(() => setLost(false), [id]);
  useEffect(() => {
    document.title = loaded.data ? `${loaded.data.group.name} · studyhall` : 'Group · studyhall';
  }, [loaded.data]);

  if (lost) return <LostAccess name={loaded.data?.group.name ?? 'this group'} />;
  if (loaded.error)
    return (
      <div class="page">
        <h1 class="page-title">Group</h1>
        <ErrorNotice error={loaded.error} onRetry={() => void loaded.reload()} />
      </div>
    );
  if (loaded.data === undefined) return <PageSkeleton />;
  if (loaded.data === null) return <Unavailable />;
  const { group, standing } = loaded.data;
  if (standing.kind === 'member') {
    return (
      <MemberView
        key={group.id}
        initial={group}
        role={standing.role}
        onLost={() => setLost(true)}
        onLeft={() => route('/community')}
      />
    );
  }
  return (
    <>
      <OutsideView
        group={group}
        standing={standing}
        onJoined={() => void loaded.reload()}
        onStanding={(next) => loaded.set({ group, standing: next })}
        onReport={() => setReport({ type: 'group', id: group.id, what: group.name })}
      />
      <ReportDialog subject={report} onClose={() => setReport(null)} />
    </>
  );
}
