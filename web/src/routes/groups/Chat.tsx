// The group's live chat: newest at the bottom, the input fixed under it, runs of one sender's
// messages within a minute under one name and picture, each message's time beside it on hover or
// focus and whole in its actions row (ChatMessageActions.tsx: report, delete with an inline
// confirmation, reachable on touch screens too), a "New messages" marker before what arrived while
// the student looked away, and a calm line while the connection is being restored (messages sent
// meanwhile appear on return).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { BoardMember } from '#contracts/community-answers.ts';
import type { ChatMessage } from '#contracts/community-rows.ts';
import { FieldError } from '../../components/FieldError.tsx';
import { Avatar, nameOf } from '../../components/community/Avatar.tsx';
import { SendIcon } from '../../components/community/icons.tsx';
import { MessageText } from '../../components/community/MessageText.tsx';
import { ChatFeed, type FeedState } from '../../lib/community/chat-feed.ts';
import { instantOf, layoutMessages } from '../../lib/community/chat-log.ts';
import { describeCommunityError } from '../../lib/community/words.ts';
import type { ReportSubject } from '../../components/community/ReportDialog.tsx';
import { MessageActions, MoreButton } from './ChatMessageActions.tsx';

/** The start of a message, for the name of its actions button. */
function snippetOf(content: string): string {
  const line = content.replace(/\s+/g, ' ').trim();
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}

function msOf(message: ChatMessage): number {
  return Math.floor(instantOf(message.created_at) / 1000);
}

function clockText(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
}

function dayText(ms: number): string {
  const date = new Date(ms);
  const today = new Date();
  const yesterday = new Date(Date.now() - 86_400_000);
  return date.toDateString() === today.toDateString()
    ? 'Today'
    : date.toDateString() === yesterday.toDateString()
      ? 'Yesterday'
      : date.toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long' });
}

function dividerText(ms: number): string {
  return `${dayText(ms)}, ${clockText(ms)}`;
}

/** A message's time in full: "today at 11:11 PM", "Monday, 3 March at 9:05 AM". */
function sentText(ms: number): string {
  const day = dayText(ms);
  return `${day === 'Today' || day === 'Yesterday' ? day.toLowerCase() : day} at ${clockText(ms)}`;
}

function senderName(senderId: string | null, members: Map<string, BoardMember>): string {
  if (senderId === null) return 'Deleted account';
  const member = members.get(senderId);
  return member ? nameOf(member) : 'Former member';
}

export function Chat({
  groupId,
  members,
  onLost,
  onReport,
  onRemoved,
}: {
  groupId: string;
  members: readonly BoardMember[];
  onLost: () => void;
  onReport: (subject: ReportSubject) => void;
  /** The ids of the removed messages the chat holds, each time that set changes. */
  onRemoved?: (ids: ReadonlySet<string>) => void;
}) {
  const [state, setState] = useState<FeedState | null>(null);
  const [draft, setDraft] = useState('');
  const [sendError, setSendError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [firstUnread, setFirstUnread] = useState<string | null>(null);
  const [atBottom, setAtBottom] = useState(true);
  /** The message whose actions row is open. */
  const [openActions, setOpenActions] = useState<string | null>(null);
  const feed = useRef<ChatFeed | null>(null);
  const log = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const bottomRef = useRef(true);
  const seen = useRef<Set<string>>(new Set());
  const byId = useMemo(() => new Map(members.map((member) => [member.userId, member])), [members]);
  const me = members.find((member) => member.you);
  const meId = me?.userId ?? null;
  // Owners and moderators delete anyone's message in the group; everyone deletes her own.
  const moderates = me?.role === 'owner' || me?.role === 'moderator';
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);

  const remove = async (messageId: string) => {
    setConfirmDelete(null);
    setOpenActions(null);
    // The row goes away with the message's actions: the focus goes to the log it was in.
    log.current?.focus();
    try {
      await feed.current?.remove(messageId);
    } catch (failure) {
      setSendError(describeCommunityError(failure));
    }
  };
  const toggleActions = (messageId: string, open: boolean) => {
    setConfirmDelete(null);
    setOpenActions(open ? messageId : null);
  };

  useEffect(() => {
    const started = new ChatFeed(groupId, setState);
    feed.current = started;
    void started.start();
    return () => void started.stop();
  }, [groupId]);

  useEffect(() => {
    if (state?.status === 'no_access') onLost();
  }, [state?.status]);

  const messages = state?.messages ?? [];

  // A removal (by its sender, a moderator or an admin resolving a report) is told to the page, so
  // nothing else on it keeps showing the removed text.
  const removedKey = messages
    .filter((message) => message.deleted_at)
    .map((message) => message.id)
    .join(',');
  useEffect(() => {
    onRemoved?.(new Set(removedKey ? removedKey.split(',') : []));
  }, [removedKey]);

  // Messages that came in while the student was not looking (another tab, scrolled up, a dropped
  // connection) get the marker before the first of them.
  useEffect(() => {
    const fresh = messages.filter((message) => !seen.current.has(message.id));
    const firstLoad = seen.current.size === 0;
    for (const message of messages) seen.current.add(message.id);
    if (firstLoad || fresh.length === 0) return;
    const away = document.visibilityState !== 'visible' || !bottomRef.current;
    const fromOthers = fresh.filter((message) => message.sender_id !== meId);
    if (away && fromOthers[0] && firstUnread === null) setFirstUnread(fromOthers[0].id);
  }, [messages]);

  // Newest at the bottom: follow new messages while the student is at the bottom.
  useEffect(() => {
    const element = log.current;
    if (element && bottomRef.current) element.scrollTop = element.scrollHeight;
  }, [messages.length, firstUnread]);

  const onScroll = () => {
    const element = log.current;
    if (!element) return;
    const bottom = element.scrollHeight - element.scrollTop - element.clientHeight < 24;
    bottomRef.current = bottom;
    setAtBottom(bottom);
    if (element.scrollTop < 40 && state?.hasOlder && !state.loadingOlder) void loadOlder();
  };

  const loadOlder = async () => {
    const element = log.current;
    const before = element ? element.scrollHeight - element.scrollTop : 0;
    await feed.current?.loadOlder();
    // Keep the message the student was reading where it was.
    requestAnimationFrame(() => {
      if (element) element.scrollTop = element.scrollHeight - before;
    });
  };

  const jumpToNewest = () => {
    const element = log.current;
    if (element) element.scrollTop = element.scrollHeight;
    bottomRef.current = true;
    setAtBottom(true);
  };

  const send = async () => {
    const text = draft.trim();
    if (!text || !feed.current) return;
    if (text.length > 2000) return setSendError('A message is at most 2,000 characters.');
    setSending(true);
    setSendError(null);
    setFirstUnread(null);
    bottomRef.current = true;
    try {
      await feed.current.send(text);
      setDraft('');
      input.current?.focus();
    } catch (failure) {
      setSendError(describeCommunityError(failure));
    } finally {
      setSending(false);
    }
  };

  const items = layoutMessages(messages, firstUnread);
  const status = state?.status ?? 'connecting';

  return (
    <section class="card chat" aria-labelledby="chat-title">
      <div class="row-between chat-head">
        <h2 id="chat-title" class="card-title">
          Chat
        </h2>
        <p class={`chat-status chat-status-${status}`} role="status">
          {status === 'live' ? (
            <>
              <span class="presence-dot" aria-hidden="true" />
              Live
            </>
          ) : status === 'reconnecting' ? (
            'Reconnecting… new messages appear when it is back'
          ) : status === 'connecting' ? (
            'Connecting…'
          ) : (
            ''
          )}
        </p>
      </div>
      <div
        class="chat-log"
        ref={log}
        onScroll={onScroll}
        role="log"
        aria-live="polite"
        aria-relevant="additions"
        aria-label="Messages"
        tabIndex={0}
      >
        {state === null || (messages.length === 0 && status === 'connecting') ? (
          <div class="chat-skeleton" aria-busy="true">
            <div class="skeleton skeleton-line" />
            <div class="skeleton skeleton-line skeleton-long" />
            <div class="skeleton skeleton-line skeleton-short" />
          </div>
        ) : messages.length === 0 ? (
          <div class="chat-empty">
            <p>
              <strong>No messages yet.</strong>
            </p>
            <p class="muted small">Say hello, share what you are working on, or agree on a time to study together.</p>
          </div>
        ) : (
          <>
            {state.hasOlder && (
              <p class="chat-older">
                <button
                  type="button"
                  class="button button-quiet"
                  disabled={state.loadingOlder}
                  onClick={() => void loadOlder()}
                >
                  {state.loadingOlder ? 'Loading earlier messages…' : 'Load earlier messages'}
                </button>
              </p>
            )}
            {items.map((item) => {
              if (item.kind === 'divider')
                return (
                  <p key={item.key} class="chat-divider">
                    <span>{dividerText(item.at)}</span>
                  </p>
                );
              if (item.kind === 'unread')
                return (
                  <p key={item.key} class="chat-unread">
                    <span>New messages</span>
                  </p>
                );
              const name = senderName(item.senderId, byId);
              const member = item.senderId ? byId.get(item.senderId) : undefined;
              const mine = item.senderId !== null && item.senderId === meId;
              return (
                <div key={item.key} class={`chat-run${mine ? ' is-mine' : ''}`}>
                  <Avatar url={member?.avatarUrl ?? null} name={name} size="small" />
                  <div class="chat-run-body">
                    <p class="chat-run-head">
                      <strong>{mine ? 'You' : name}</strong>
                      <time class="muted small" dateTime={new Date(item.at).toISOString()}>
                        {clockText(item.at)}
                      </time>
                    </p>
                    {item.messages.map((message) => {
                      const ms = msOf(message);
                      const removed = Boolean(message.deleted_at);
                      const canDelete = !removed && (mine || moderates);
                      const canReport = !removed && !mine;
                      const open = openActions === message.id && (canDelete || canReport);
                      return (
                        <div
                          key={message.id}
                          class={`chat-message${open ? ' is-open' : ''}`}
                          data-message-id={message.id}
                          title={new Date(ms).toLocaleString()}
                        >
                          <div class="chat-line">
                            {removed ? (
                              <p class="chat-text muted">Message removed</p>
                            ) : (
                              <p class="chat-text">
                                <MessageText content={message.content} />
                              </p>
                            )}
                            <time class="chat-time small muted" dateTime={new Date(ms).toISOString()}>
                              {clockText(ms)}
                            </time>
                            {(canDelete || canReport) && (
                              <MoreButton
                                messageId={message.id}
                                whose={mine ? 'your message' : `${name}’s message`}
                                snippet={snippetOf(message.content)}
                                open={open}
                                onToggle={(next) => toggleActions(message.id, next)}
                              />
                            )}
                          </div>
                          {open && (
                            <MessageActions
                              messageId={message.id}
                              sender={name}
                              sentAt={sentText(ms)}
                              sentAtIso={new Date(ms).toISOString()}
                              canReport={canReport}
                              canDelete={canDelete}
                              confirming={confirmDelete === message.id}
                              onToggle={(next) => toggleActions(message.id, next)}
                              onConfirm={(confirming) => setConfirmDelete(confirming ? message.id : null)}
                              onReport={() => {
                                setOpenActions(null);
                                onReport({ type: 'message', id: message.id, what: `this message by ${name}` });
                              }}
                              onDelete={() => void remove(message.id)}
                            />
                          )}
                        </div>
                      );
                    })}
                  </div>
                </div>
              );
            })}
          </>
        )}
      </div>
      {!atBottom && messages.length > 0 && (
        <button type="button" class="button chat-jump" onClick={jumpToNewest}>
          {firstUnread ? 'New messages ↓' : 'Back to newest ↓'}
        </button>
      )}
      {state?.error && state.status !== 'no_access' && (
        <p class="small field-error" role="alert">
          {describeCommunityError(state.error)}
        </p>
      )}
      <form
        class="chat-compose"
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <label class="visually-hidden" for="chat-input">
          Message
        </label>
        <textarea
          id="chat-input"
          ref={input}
          class="input textarea chat-input"
          rows={1}
          placeholder="Write a message…"
          value={draft}
          maxLength={2000}
          aria-describedby={sendError ? 'chat-error' : 'chat-hint'}
          aria-invalid={sendError ? true : undefined}
          onInput={(event) => setDraft(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              void send();
            }
          }}
        />
        <button
          type="submit"
          class="button button-primary icon-button"
          aria-label="Send message"
          title="Send (Enter)"
          disabled={sending || !draft.trim()}
        >
          <SendIcon size={18} />
        </button>
      </form>
      {sendError ? (
        <FieldError id="chat-error" message={sendError} />
      ) : (
        <p id="chat-hint" class="visually-hidden">
          Enter sends, Shift and Enter starts a new line.
        </p>
      )}
    </section>
  );
}
