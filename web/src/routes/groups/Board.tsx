// The live board: who is studying now, on what and for how long, as far as each member shares
// (the database applies their switches; stealth reads as offline). Studying first, then on a
// break, paused, and everyone else in a compact list. Presence is a dot plus a word.
import type { BoardMember } from '#contracts/community-answers.ts';
import type { PresenceState } from '#contracts/community-rows.ts';
import { Avatar, nameOf } from '../../components/community/Avatar.tsx';
import { FlagIcon } from '../../components/community/icons.tsx';
import { NotShared, PresenceBadge } from '../../components/community/Presence.tsx';
import type { ReportSubject } from '../../components/community/ReportDialog.tsx';
import { formatCount, minutesText, plural } from '../../lib/format.ts';

const ORDER: Record<PresenceState, number> = { studying: 0, break: 1, idle: 2, offline: 3 };

export function sortBoard(members: readonly BoardMember[]): BoardMember[] {
  return [...members].sort(
    (a, b) => ORDER[a.presence.state] - ORDER[b.presence.state] || nameOf(a).localeCompare(nameOf(b)),
  );
}

function sinceText(since: string | null, now: number): string | null {
  if (!since) return null;
  const minutes = Math.max(0, Math.floor((now - Date.parse(since)) / 60_000));
  return minutes < 1 ? 'just started' : `for ${minutesText(minutes)}`;
}

function ReportMember({ member, onReport }: { member: BoardMember; onReport: (subject: ReportSubject) => void }) {
  if (member.you) return null;
  const name = nameOf(member);
  return (
    <button
      type="button"
      class="board-report"
      title={`Report ${name}`}
      aria-label={`Report ${name}`}
      onClick={() => onReport({ type: 'user', id: member.userId, what: name })}
    >
      <FlagIcon size={14} />
    </button>
  );
}

function ActiveTile({
  member,
  now,
  onReport,
}: {
  member: BoardMember;
  now: number;
  onReport: (subject: ReportSubject) => void;
}) {
  const { presence } = member;
  const doing = [presence.subject, presence.task].filter(Boolean).join(' · ');
  const since = sinceText(presence.since, now);
  return (
    <li class={`board-tile board-${presence.state}`}>
      <Avatar url={member.avatarUrl} name={nameOf(member)} />
      <div class="board-tile-main">
        <p class="board-name">
          {nameOf(member)}
          {member.you && <span class="muted"> (you)</span>}
          {member.role === 'owner' && <span class="badge">Owner</span>}
        </p>
        <p class="board-state">
          <PresenceBadge state={presence.state} />
          {since && <span class="muted tabular"> {since}</span>}
        </p>
        <p class="board-doing small">{doing || <span class="muted">Subject not shared</span>}</p>
      </div>
      <p class="board-today small tabular" title="Minutes studied today">
        {member.minutesToday === null ? (
          <NotShared what="Time today" />
        ) : member.minutesToday === 0 ? (
          // Today's minutes count finished sessions: "nothing yet" beside "studying for 25 min" read as a contradiction.
          <span class="muted">No finished session yet today</span>
        ) : (
          <>
            {minutesText(member.minutesToday)}
            <span class="muted"> today</span>
          </>
        )}
      </p>
      <ReportMember member={member} onReport={onReport} />
    </li>
  );
}

function RestRow({ member, onReport }: { member: BoardMember; onReport: (subject: ReportSubject) => void }) {
  return (
    <li class="board-rest-row">
      <Avatar url={member.avatarUrl} name={nameOf(member)} size="small" />
      <span class="board-rest-name">
        {nameOf(member)}
        {member.you && <span class="muted"> (you)</span>}
        {member.role === 'owner' && <span class="badge">Owner</span>}
      </span>
      <PresenceBadge state={member.presence.state} />
      <span class="small muted tabular board-rest-today">
        {member.minutesToday === null ? (
          <NotShared what="Time today" />
        ) : member.minutesToday > 0 ? (
          `${minutesText(member.minutesToday)} today`
        ) : (
          'Nothing yet today'
        )}
      </span>
      <ReportMember member={member} onReport={onReport} />
    </li>
  );
}

export function Board({
  members,
  now,
  consented,
  live = false,
  onReport,
}: {
  members: readonly BoardMember[];
  now: number;
  consented: boolean | null;
  /** Presence changes arrive over realtime (else the board is polled); for tests and benches. */
  live?: boolean;
  onReport: (subject: ReportSubject) => void;
}) {
  const sorted = sortBoard(members);
  const active = sorted.filter((member) => member.presence.state !== 'offline');
  const rest = sorted.filter((member) => member.presence.state === 'offline');
  const studying = active.filter((member) => member.presence.state === 'studying').length;
  const me = members.find((member) => member.you);
  return (
    <section class="card board" aria-labelledby="board-title" data-live={String(live)}>
      <div class="row-between">
        <h2 id="board-title" class="card-title">
          Studying now
        </h2>
        {studying > 0 && <p class="small muted tabular">{plural(studying, 'member')} studying</p>}
      </div>
      {active.length === 0 ? (
        <div class="board-empty">
          <p>
            <strong>Nobody is studying right now.</strong>
          </p>
          <p class="muted small">
            Start a focus session and you show up here for everyone in the group
            {consented === false ? ', once community sharing is on' : ''}.
          </p>
          <a class="button" href="/focus">
            Start focusing
          </a>
        </div>
      ) : (
        <ul class="board-tiles">
          {active.map((member) => (
            <ActiveTile key={member.userId} member={member} now={now} onReport={onReport} />
          ))}
        </ul>
      )}
      {me && me.presence.state === 'offline' && consented === false && (
        <p class="small muted board-hint">
          You appear offline here: community sharing is off. <a href="/settings/privacy">Turn it on</a>
        </p>
      )}
      {rest.length > 0 && (
        <details class="board-rest" open={rest.length <= 8}>
          <summary>
            Not studying now <span class="muted">({formatCount(rest.length)})</span>
          </summary>
          <ul class="board-rest-list">
            {rest.map((member) => (
              <RestRow key={member.userId} member={member} onReport={onReport} />
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
