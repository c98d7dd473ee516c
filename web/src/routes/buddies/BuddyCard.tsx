// One buddy's day as they share it: live status (a dot and a word; stealth reads as offline),
// today's minutes and questions, subjects and tasks. A lock with "not shared" (the database sent
// null) looks different from "nothing yet today" (it sent an empty list or zero).
import { useState } from 'preact/hooks';
import type { OverviewEntry } from '#contracts/community-answers.ts';
import { AlertBell } from '../../components/community/AlertBell.tsx';
import { Avatar, nameOf } from '../../components/community/Avatar.tsx';
import { NotShared, PresenceBadge } from '../../components/community/Presence.tsx';
import { CheckIcon } from '../../components/icons.tsx';
import { minutesText, plural } from '../../lib/format.ts';

function Fact({ label, children }: { label: string; children: preact.ComponentChildren }) {
  return (
    <div class="buddy-fact">
      <dt>{label}</dt>
      <dd class="tabular">{children}</dd>
    </div>
  );
}

export function BuddyCard({
  buddy,
  alertOn,
  onAlertChanged,
  onRemove,
  onBlock,
}: {
  buddy: OverviewEntry;
  alertOn: boolean;
  onAlertChanged: () => void;
  onRemove: () => void;
  onBlock: () => void;
}) {
  const name = nameOf(buddy);
  const presence = buddy.presence ?? { state: 'offline' as const, subject: null, task: null };
  const [menu, setMenu] = useState(false);
  const doing = [presence.subject, presence.task].filter(Boolean).join(' · ');
  const maxMinutes = Math.max(1, ...(buddy.subjects ?? []).map((subject) => subject.minutes));
  return (
    <li class={`card buddy-card buddy-${presence.state}`} aria-labelledby={`buddy-${buddy.userId}`}>
      <div class="buddy-head">
        <Avatar url={null} name={name} />
        <div class="buddy-who">
          <h3 id={`buddy-${buddy.userId}`} class="buddy-name">
            {name}
          </h3>
          {buddy.handle && buddy.displayName && <p class="small muted">@{buddy.handle}</p>}
        </div>
        <AlertBell type="buddy" id={buddy.userId} name={name} enabled={alertOn} onChanged={onAlertChanged} compact />
      </div>
      <p class="buddy-now">
        <PresenceBadge state={presence.state} />
        {presence.state !== 'offline' &&
          (doing ? (
            <span class="buddy-doing">{doing}</span>
          ) : (
            <span class="buddy-doing muted">Subject not shared</span>
          ))}
      </p>
      <dl class="buddy-facts">
        <Fact label="Today">
          {buddy.minutesToday === null ? (
            <NotShared what="Minutes today" />
          ) : buddy.minutesToday === 0 ? (
            <span class="muted">Nothing yet</span>
          ) : (
            minutesText(buddy.minutesToday)
          )}
        </Fact>
        <Fact label="Questions">
          {buddy.questionsToday === null ? (
            <NotShared what="Questions today" />
          ) : buddy.questionsToday === 0 ? (
            <span class="muted">None yet</span>
          ) : (
            buddy.questionsToday
          )}
        </Fact>
      </dl>
      <div class="buddy-section">
        <h4 class="buddy-section-title">Subjects today</h4>
        {buddy.subjects === null ? (
          <NotShared what="Subjects" />
        ) : buddy.subjects.length === 0 ? (
          <p class="nothing-yet">Nothing yet today</p>
        ) : (
          <ul class="buddy-subjects">
            {buddy.subjects.map((subject) => (
              <li key={subject.name}>
                <div class="row-between small">
                  <span>{subject.name || 'No subject'}</span>
                  <span class="muted tabular">
                    {minutesText(subject.minutes)}
                    {subject.questions ? ` · ${plural(subject.questions, 'question')}` : ''}
                  </span>
                </div>
                <div class="bar-track" aria-hidden="true">
                  <span style={{ width: `${(subject.minutes / maxMinutes) * 100}%` }} />
                </div>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div class="buddy-section">
        <h4 class="buddy-section-title">Tasks today</h4>
        {buddy.tasks === null ? (
          <NotShared what="Tasks" />
        ) : buddy.tasks.length === 0 ? (
          <p class="nothing-yet">Nothing yet today</p>
        ) : (
          <ul class="buddy-tasks">
            {buddy.tasks.map((task) => (
              <li key={task.id} class={task.done ? 'is-done' : ''}>
                <span class="task-mark" aria-hidden="true">
                  {task.done ? <CheckIcon size={14} /> : null}
                </span>
                <span>{task.title}</span>
                <span class="visually-hidden">{task.done ? ' (done)' : ' (to do)'}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div class="buddy-foot">
        <button
          type="button"
          class="button button-quiet"
          aria-expanded={menu}
          aria-label={menu ? `Close the actions for ${name}` : `More actions for ${name}`}
          onClick={() => setMenu(!menu)}
        >
          {menu ? 'Close' : 'More'}
        </button>
        {menu && (
          <div class="row">
            <button type="button" class="button" onClick={onRemove}>
              Remove buddy
            </button>
            <button type="button" class="button button-quiet danger-text" onClick={onBlock}>
              Block
            </button>
          </div>
        )}
      </div>
    </li>
  );
}
