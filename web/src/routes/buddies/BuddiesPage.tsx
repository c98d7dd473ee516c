// /buddies: study buddies. Add one by handle (an unknown handle is a field error), answer and
// cancel requests, share a buddy invite link, and see each buddy's day as they share it
// (community_get_overview applies every buddy's own switches). Start alerts live here too.
import { useState } from 'preact/hooks';
import type { OverviewEntry } from '#contracts/community-answers.ts';
import { BusyButton } from '../../components/BusyButton.tsx';
import { FieldError } from '../../components/FieldError.tsx';
import { Avatar, nameOf } from '../../components/community/Avatar.tsx';
import { ConfirmDialog, type Confirmation } from '../../components/community/ConfirmDialog.tsx';
import { UserPlusIcon } from '../../components/community/icons.tsx';
import { CopyButton, ErrorNotice } from '../../components/community/Notices.tsx';
import { StartAlertsCard } from '../../components/community/StartAlertsCard.tsx';
import { useLoad, useRefresh } from '../../components/community/useLoad.ts';
import { useLiveFeed } from '../../components/community/useLiveFeed.ts';
import { usePresenceFeed } from '../../components/community/usePresenceFeed.ts';
import { SlowNote } from '../../components/Skeleton.tsx';
import { TextField } from '../../components/TextField.tsx';
import { TitledSection } from '../../components/TitledSection.tsx';
import { alertFor, listAlerts } from '../../lib/community/alerts.ts';
import { CommunityError } from '../../lib/community/backend.ts';
import { followBuddies } from '../../lib/community/buddy-feed.ts';
import { readOverview, removeBuddy, requestBuddy, respondBuddy } from '../../lib/community/buddies.ts';
import { inviteLink } from '../../lib/community/groups.ts';
import { createBuddyInvite } from '../../lib/community/invites.ts';
import { readEnrollment } from '../../lib/community/privacy.ts';
import { useCommunityAction } from '../../lib/community/use-community-action.ts';
import { describeCommunityError } from '../../lib/community/words.ts';
import { BuddyCard } from './BuddyCard.tsx';
import '../../styles/community/shared.css';
import '../../styles/community/buddies.css';

const FIELD_CODES = new Set(['user_not_found', 'cannot_befriend_self', 'already_buddies', 'request_pending']);

function AddBuddy({ onSent }: { onSent: () => void }) {
  const [handle, setHandle] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setSent(null);
    setProblem(null);
    const wanted = handle.trim().replace(/^@/, '');
    if (!wanted) return setFieldError('Enter the handle of the student you want to add.');
    setFieldError(null);
    setBusy(true);
    try {
      await requestBuddy(wanted);
      setSent(wanted);
      setHandle('');
      onSent();
    } catch (failure) {
      if (failure instanceof CommunityError && FIELD_CODES.has(failure.code)) {
        setFieldError(
          failure.code === 'user_not_found'
            ? `No student has the handle “${wanted}”. Check the spelling, or send them an invite link instead.`
            : describeCommunityError(failure),
        );
      } else setProblem(describeCommunityError(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card stack" aria-labelledby="add-title" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="add-title" class="card-title">
        Add a buddy
      </h2>
      <div class="inline-form">
        <TextField
          id="buddy-handle"
          label="Their handle"
          value={handle}
          onValue={setHandle}
          placeholder="e.g. ada_lovelace"
          autoComplete="off"
          spellcheck={false}
          aria-invalid={fieldError ? true : undefined}
          aria-describedby={fieldError ? 'buddy-handle-error' : 'buddy-handle-hint'}
        />
        <button type="submit" class="button button-primary" disabled={busy}>
          <UserPlusIcon size={18} />
          {busy ? 'Sending…' : 'Send request'}
        </button>
      </div>
      {fieldError ? (
        <FieldError id="buddy-handle-error" message={fieldError} />
      ) : (
        <p id="buddy-handle-hint" class="field-hint">
          They see your request on their Buddies page and accept or decline it.
        </p>
      )}
      {problem && (
        <div class="notice notice-error" role="alert">
          <p>{problem}</p>
        </div>
      )}
      {sent && (
        <div class="notice notice-success" role="status">
          <p>Request sent to @{sent}.</p>
        </div>
      )}
    </form>
  );
}

function BuddyInvite() {
  const [link, setLink] = useState<string | null>(null);
  const { busy, error, run } = useCommunityAction();
  const create = async () => {
    await run(async () => setLink(await inviteLink(await createBuddyInvite(7, 1))));
  };
  return (
    <TitledSection class="card stack" titleId="buddy-invite-title" title="Invite by link">
      <p class="muted small">
        For a friend without a handle yet: whoever opens the link and accepts becomes your buddy. It works once and
        expires in 7 days.
      </p>
      {link ? (
        <div class="row invite-row">
          <input
            id="buddy-invite-link"
            class="input invite-link"
            readOnly
            value={link}
            aria-label="Your buddy invite link"
            onFocus={(event) => event.currentTarget.select()}
          />
          <CopyButton text={link} inputId="buddy-invite-link" />
        </div>
      ) : (
        <div>
          <BusyButton type="button" class="button" onClick={() => void create()} busy={busy} busyLabel="Creating…">
            Create a buddy invite link
          </BusyButton>
        </div>
      )}
      <FieldError message={error} />
    </TitledSection>
  );
}

function Requests({ entries, onChanged }: { entries: OverviewEntry[]; onChanged: () => void }) {
  const { error, run } = useCommunityAction();
  const act = async (work: () => Promise<unknown>) => {
    if (await run(work)) onChanged();
  };
  const incoming = entries.filter((entry) => !entry.outgoing);
  const outgoing = entries.filter((entry) => entry.outgoing);
  if (entries.length === 0) return null;
  return (
    <TitledSection class="card stack" titleId="requests-title" title="Requests">
      {incoming.length > 0 && (
        <ul class="list" aria-label="Asking to be your buddy">
          {incoming.map((entry) => (
            <li key={entry.connectionId} class="list-item">
              <Avatar url={null} name={nameOf(entry)} size="small" />
              <div class="list-main">
                <p class="list-title">{nameOf(entry)}</p>
                <p class="list-meta">wants to be your buddy</p>
              </div>
              <div class="row">
                <button
                  type="button"
                  class="button button-primary"
                  aria-label={`Accept ${nameOf(entry)}`}
                  onClick={() => void act(() => respondBuddy(entry.connectionId, true))}
                >
                  Accept
                </button>
                <button
                  type="button"
                  class="button"
                  aria-label={`Decline ${nameOf(entry)}`}
                  onClick={() => void act(() => respondBuddy(entry.connectionId, false))}
                >
                  Decline
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {outgoing.length > 0 && (
        <ul class="list" aria-label="Your requests">
          {outgoing.map((entry) => (
            <li key={entry.connectionId} class="list-item">
              <Avatar url={null} name={nameOf(entry)} size="small" />
              <div class="list-main">
                <p class="list-title">{nameOf(entry)}</p>
                <p class="list-meta">waiting for their answer</p>
              </div>
              <button
                type="button"
                class="button"
                aria-label={`Cancel your request to ${nameOf(entry)}`}
                onClick={() => void act(() => removeBuddy(entry.userId, false))}
              >
                Cancel request
              </button>
            </li>
          ))}
        </ul>
      )}
      <FieldError message={error} />
    </TitledSection>
  );
}

function CardsSkeleton() {
  return (
    <ul class="buddy-grid" aria-busy="true" aria-label="Loading buddies">
      {[0, 1].map((index) => (
        <li key={index} class="card skeleton-card skeleton" />
      ))}
    </ul>
  );
}

/** Overview refresh while realtime is down, and while it is up (today's minutes, new requests, stale heartbeats). */
const OVERVIEW_REFRESH_MS = 30_000;
const OVERVIEW_REFRESH_LIVE_MS = 60_000;

export default function BuddiesPage() {
  document.title = 'Buddies · studyhall';
  const overview = useLoad(readOverview, []);
  const alerts = useLoad(listAlerts, []);
  const enrollment = useLoad(readEnrollment, []);
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  // A buddy's presence change re-reads the overview at once; the poll is quick only while realtime is down.
  const feed = usePresenceFeed(
    (change) =>
      change.userId === null ||
      (overview.data ?? []).some((entry) => entry.status === 'accepted' && entry.userId === change.userId),
    () => overview.reload(),
  );
  // A request arriving, answered, cancelled, a buddy removed: the overview is read again at once, on both sides.
  const buddyFeed = useLiveFeed(
    followBuddies,
    () => true,
    () => overview.reload(),
  );
  const live = feed === 'live' && buddyFeed === 'live';
  useRefresh(() => void overview.reload(), live ? OVERVIEW_REFRESH_LIVE_MS : OVERVIEW_REFRESH_MS);
  const entries = overview.data ?? [];
  const buddies = entries.filter((entry) => entry.status === 'accepted');
  const pending = entries.filter((entry) => entry.status === 'pending');
  const hasBuddies = buddies.length > 0;
  const addBuddies = (
    <div class="grid-2 buddies-top">
      <AddBuddy onSent={() => void overview.reload()} />
      <BuddyInvite />
    </div>
  );

  return (
    <div class="page buddies-page">
      <div class="page-head">
        <div>
          <h1 class="page-title">Buddies</h1>
          <p class="page-lead">
            Study side by side with friends: see how their day is going, as far as each of them shares.
          </p>
        </div>
        <a class="button" href="/settings/privacy">
          What my buddies see
        </a>
      </div>
      {enrollment.data && !enrollment.data.consent && (
        <div class="notice callout">
          <p>Your buddies see you as offline while you study: community sharing is off.</p>
          <a class="button" href="/settings/privacy">
            Privacy settings
          </a>
        </div>
      )}
      {/* With buddies, who is studying comes first; adding more comes after them. */}
      {!hasBuddies && addBuddies}
      {overview.error ? (
        <ErrorNotice error={overview.error} onRetry={() => void overview.reload()} />
      ) : !overview.data ? (
        <>
          <CardsSkeleton />
          <SlowNote what="Loading your buddies" />
        </>
      ) : (
        <>
          <Requests entries={pending} onChanged={() => void overview.reload()} />
          <section class="stack" aria-labelledby="buddies-title">
            <h2 id="buddies-title" class="section-title">
              Your buddies {buddies.length > 0 && <span class="muted">({buddies.length})</span>}
            </h2>
            {buddies.length === 0 ? (
              <div class="empty">
                <strong>No buddies yet</strong>
                <p>
                  Add a friend by their handle, or send them an invite link. Once they accept, their day shows here.
                </p>
              </div>
            ) : (
              <ul class="buddy-grid" data-live={String(live)}>
                {buddies.map((buddy) => (
                  <BuddyCard
                    key={buddy.connectionId}
                    buddy={buddy}
                    alertOn={alertFor(alerts.data ?? [], 'buddy', buddy.userId)}
                    onAlertChanged={() => void alerts.reload()}
                    onRemove={() =>
                      setConfirmation({
                        title: `Remove ${nameOf(buddy)}?`,
                        body: (
                          <p>
                            You stop seeing each other's study day, and your start alerts for {nameOf(buddy)} stop.
                            Either of you can send a new request later.
                          </p>
                        ),
                        action: 'Remove buddy',
                        danger: true,
                        run: async () => {
                          await removeBuddy(buddy.userId, false);
                          await overview.reload();
                        },
                      })
                    }
                    onBlock={() =>
                      setConfirmation({
                        title: `Block ${nameOf(buddy)}?`,
                        body: (
                          <p>
                            {nameOf(buddy)} is removed from your buddies and can no longer send you requests or find you
                            by your handle. They are not told.
                          </p>
                        ),
                        action: 'Block',
                        danger: true,
                        run: async () => {
                          await removeBuddy(buddy.userId, true);
                          await overview.reload();
                        },
                      })
                    }
                  />
                ))}
              </ul>
            )}
          </section>
        </>
      )}
      {hasBuddies && addBuddies}
      <StartAlertsCard />
      <ConfirmDialog confirmation={confirmation} onClose={() => setConfirmation(null)} />
    </div>
  );
}
