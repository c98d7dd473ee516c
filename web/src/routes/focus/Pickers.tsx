// Subject and task for the session: chosen from the student's own, or added on the spot.
import { useState } from 'preact/hooks';
import { Field } from '../../components/Field.tsx';
import { TextField } from '../../components/TextField.tsx';
import { NOT_SAVED_TEXT } from '../../lib/sync-status.ts';
import { addSubject, addTask } from '../../state/data.ts';
import { choose, selection } from '../../state/focus.ts';
import { settings, subjects, tasks } from '../../state/signals.ts';
import { studyDayOf } from '../../lib/study-day.ts';

const NEW = '__new__';

function InlineAdd({
  id,
  label,
  onAdd,
  onCancel,
  max,
}: {
  id: string;
  label: string;
  max: number;
  onAdd: (text: string) => Promise<void>;
  onCancel: () => void;
}) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const value = text.trim();
    if (!value) return setProblem(`Enter a ${label.toLowerCase()}.`);
    if (value.length > max) return setProblem(`Keep it under ${max} characters.`);
    try {
      await onAdd(value);
    } catch {
      setProblem(NOT_SAVED_TEXT);
    }
  };
  return (
    <form class="inline-form" onSubmit={(event) => void submit(event)}>
      <TextField
        id={id}
        label={label}
        value={text}
        onValue={setText}
        maxLength={max}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-error` : undefined}
        autoFocus
      />
      <button type="submit" class="button">
        Add
      </button>
      <button type="button" class="button button-quiet" onClick={onCancel}>
        Cancel
      </button>
      {/* Under the field and the buttons, so the buttons stay beside the field. */}
      {problem && (
        <p id={`${id}-error`} class="field-error inline-form-error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}

export function Pickers({ locked }: { locked: boolean }) {
  const chosen = selection();
  const [adding, setAdding] = useState<'subject' | 'task' | null>(null);
  const today = studyDayOf(Date.now(), settings.value.dayOffsetHours);
  const openTasks = tasks.value.filter(
    (task) =>
      !task.done &&
      (task.day === null || task.day <= today) &&
      (!chosen.subjectId || task.subjectId === chosen.subjectId || task.subjectId === null),
  );

  if (adding === 'subject') {
    return (
      <InlineAdd
        id="new-subject"
        label="New subject"
        max={200}
        onCancel={() => setAdding(null)}
        onAdd={async (name) => {
          const subject = await addSubject(name);
          choose({ subjectId: subject.id, taskId: null });
          setAdding(null);
        }}
      />
    );
  }
  if (adding === 'task') {
    return (
      <InlineAdd
        id="new-task"
        label="New task"
        max={500}
        onCancel={() => setAdding(null)}
        onAdd={async (title) => {
          const task = await addTask(title, chosen.subjectId, today);
          choose({ taskId: task.id });
          setAdding(null);
        }}
      />
    );
  }
  return (
    <div class="pickers">
      <Field id="subject-picker" label="Subject">
        <select
          id="subject-picker"
          class="select"
          value={chosen.subjectId ?? ''}
          disabled={locked}
          onChange={(event) => {
            const value = event.currentTarget.value;
            if (value === NEW) return setAdding('subject');
            choose({ subjectId: value || null, taskId: null });
          }}
        >
          <option value="">No subject</option>
          {subjects.value.map((subject) => (
            <option key={subject.id} value={subject.id}>
              {subject.name}
            </option>
          ))}
          <option value={NEW}>New subject…</option>
        </select>
      </Field>
      <Field id="task-picker" label="Task">
        <select
          id="task-picker"
          class="select"
          value={chosen.taskId ?? ''}
          disabled={locked}
          onChange={(event) => {
            const value = event.currentTarget.value;
            if (value === NEW) return setAdding('task');
            choose({ taskId: value || null });
          }}
        >
          <option value="">No task</option>
          {openTasks.map((task) => (
            <option key={task.id} value={task.id}>
              {task.title}
            </option>
          ))}
          <option value={NEW}>New task…</option>
        </select>
      </Field>
    </div>
  );
}
