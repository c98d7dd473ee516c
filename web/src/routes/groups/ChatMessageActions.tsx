// One chat message's actions, the same on a phone and a desktop: a "more" button beside the
// message (always shown on touch screens, on hover or focus elsewhere) opens a row under it with the
// message's whole time and what the student may do (report someone else's message; delete her own,
// or anyone's in a group she moderates). Deleting asks once, inline: "Delete for everyone?" takes
// the focus, so a screen reader reads the question, and Escape or Cancel takes the student back.
import { useEffect, useRef } from 'preact/hooks';
import { FlagIcon } from '../../components/community/icons.tsx';
import { TrashIcon } from '../../components/icons.tsx';
import { MoreIcon } from '../../components/icons.tsx';

export interface MoreButtonProps {
  messageId: string;
  /** "your message" or "Ada’s message", and the start of its text: the button's unique name. */
  whose: string;
  snippet: string;
  open: boolean;
  onToggle: (open: boolean) => void;
}

export interface MessageActionsProps {
  messageId: string;
  /** The sender's name for the action names ("Report this message by Ada"). */
  sender: string;
  /** The message's time, whole, in the viewer's local time (with the date when not today). */
  sentAt: string;
  sentAtIso: string;
  canReport: boolean;
  canDelete: boolean;
  confirming: boolean;
  onToggle: (open: boolean) => void;
  onConfirm: (confirming: boolean) => void;
  onReport: () => void;
  onDelete: () => void;
}

export function MoreButton({ messageId, whose, snippet, open, onToggle }: MoreButtonProps) {
  return (
    <button
      type="button"
      class="chat-more"
      id={`chat-more-${messageId}`}
      aria-label={`Actions for ${whose} “${snippet}”`}
      aria-expanded={open}
      aria-controls={open ? `chat-actions-${messageId}` : undefined}
      title="Actions"
      onClick={() => onToggle(!open)}
    >
      <MoreIcon size={18} />
    </button>
  );
}

export function MessageActions(props: MessageActionsProps) {
  const { messageId, sender, sentAt, sentAtIso, canReport, canDelete, confirming, onConfirm, onToggle } = props;
  const question = useRef<HTMLParagraphElement>(null);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);
  useEffect(() => {
    if (confirming) question.current?.focus();
    else if (wasConfirming.current) deleteButton.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);
  const close = () => {
    onToggle(false);
    document.getElementById(`chat-more-${messageId}`)?.focus();
  };
  return (
    <div
      class="chat-actions"
      id={`chat-actions-${messageId}`}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        event.preventDefault();
        event.stopPropagation();
        if (confirming) onConfirm(false);
        else close();
      }}
    >
      {confirming ? (
        <div class="chat-confirm" role="group" aria-labelledby={`chat-confirm-${messageId}`}>
          <p id={`chat-confirm-${messageId}`} class="chat-confirm-question" tabIndex={-1} ref={question}>
            <strong>Delete for everyone?</strong> The group sees “Message removed” instead.
          </p>
          <div class="row">
            <button type="button" class="button button-danger" onClick={props.onDelete}>
              Delete
            </button>
            <button type="button" class="button" onClick={() => onConfirm(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <>
          <time class="chat-actions-time small muted" dateTime={sentAtIso}>
            Sent {sentAt}
          </time>
          <div class="row">
            {canReport && (
              <button
                type="button"
                class="button button-quiet"
                aria-label={`Report this message by ${sender}`}
                onClick={props.onReport}
              >
                <FlagIcon size={16} />
                Report
              </button>
            )}
            {canDelete && (
              <button
                type="button"
                ref={deleteButton}
                class="button button-quiet"
                aria-label={`Delete this message by ${sender}`}
                onClick={() => onConfirm(true)}
              >
                <TrashIcon size={16} />
                Delete
              </button>
            )}
          </div>
        </>
      )}
    </div>
  );
}
