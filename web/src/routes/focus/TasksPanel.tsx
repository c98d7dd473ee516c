// Today's tasks beside the timer: tick one off, add one, remove one. Each change syncs to the
// backend's user_tasks through the outbox; until then the row says it will sync. A change this
// device cannot keep is said under the add field, or for a tick or a removal by the banner above
// every screen (state/data.ts names it there), which is why those two only end their promise.
import { useState } from 'preact/hooks';
import { PlusIcon, TrashIcon } from '../../components/icons.tsx';
import { TextField } from '../../components/TextField.tsx';
import { studyDayOf } from '../../lib/study-day.ts';
import { NOT_SAVED_TEXT } from '../../lib/sync-status.ts';
import { addTask, deleteTask, setTaskDone, subjectName } from '../../state/data.ts';
import { selection } from '../../state/focus.ts';
import { settings, syncState, tasks } from '../../state/signals.ts';

export function TasksPanel() {
  const today = studyDayOf(Date.now(), settings.value.dayOffsetHours);
  const [title, setTitle] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const visible = tasks.value.filter(
    (task) =>
      task.day === today || (task.day === null && !task.done) || (task.day !== null && task.day < today && !task.done),
  );
  const doneCount = visible.filter((task) => task.done).length;
  const add = async (event: Event) => {
    event.preventDefault();
    const value = title.trim();
    if (!value) return setProblem('Enter what you want to do.');
    try {
      await addTask(value, selection().subjectId, today);
    } catch {
      // The title stays in the field, so Add tries again.
      return setProblem(NOT_SAVED_TEXT);
    }
    setTitle('');
    setProblem(null);
  };
  return (
    <section class="card tasks-panel" aria-labelledby="tasks-title">
      <div class="row-between">
        <h2 id="tasks-title" class="card-title">
          Today's tasks
        </h2>
        {visible.length > 0 && (
          <p class="small muted tabular">
            {doneCount} of {visible.length} done
          </p>
        )}
      </div>
      {visible.length === 0 ? (
        <p class="muted small">
          No tasks for today yet. Add what you plan to study; each one can be picked for a session.
        </p>
      ) : (
        <ul class="list">
          {visible.map((task) => {
            const subject = subjectName(task.subjectId);
            return (
              <li key={task.id} class="list-item">
                <label class="check-target">
                  <input
                    type="checkbox"
                    class="checkbox"
                    checked={task.done}
                    onChange={(event) => void setTaskDone(task, event.currentTarget.checked).catch(() => undefined)}
                    aria-label={`Done: ${task.title}`}
                  />
                </label>
                <div class="list-main">
                  <p class={`list-title${task.done ? ' is-done' : ''}`}>{task.title}</p>
                  {(subject || (task.day && task.day < today)) && (
                    <p class="list-meta">
                      {[subject, task.day && task.day < today ? 'from an earlier day' : null]
                        .filter(Boolean)
                        .join(' · ')}
                    </p>
                  )}
                </div>
                <button
                  type="button"
                  class="button button-quiet icon-button"
                  onClick={() => void deleteTask(task.id).catch(() => undefined)}
                  aria-label={`Delete task: ${task.title}`}
                  title="Delete task"
                >
                  <TrashIcon size={18} />
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <form class="inline-form task-add" onSubmit={(event) => void add(event)}>
        <TextField
          id="task-add-input"
          label="Add a task for today"
          maxLength={500}
          value={title}
          onValue={setTitle}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? 'task-add-error' : undefined}
        />
        <button type="submit" class="button icon-button" aria-label="Add task" title="Add task">
          <PlusIcon />
        </button>
        {/* Under the field and the button, so the button stays beside the field. */}
        {problem && (
          <p id="task-add-error" class="field-error inline-form-error" role="alert">
            {problem}
          </p>
        )}
      </form>
      {syncState.value.pending > 0 && <p class="small muted">Changes are saved on this device and will sync.</p>}
    </section>
  );
}
