// The outbox's writes to the backend's Data API (through /__backend, with the student's token, so
// row-level security decides). Each write is safe to repeat:
// - a session is recorded with record_study_session under its client id (its local uuid): the
//   database records it once per student and client id and answers a repeat with the row it
//   already has, so a retry after a lost answer changes nothing. A session from an older backup
//   whose id is not a uuid is first looked up by its start instant instead (a student cannot start
//   two sessions in the same millisecond). The call outlives the page (keepalive), so a session
//   finished just before the tab closes still arrives. A session the database refuses as
//   implausible fails for good with a sentence for the student (session-refusals.ts), so the
//   outbox sets it aside instead of retrying it;
// - a task or a subject is upserted by its id (generated on the device), a deleted one deleted by id;
// - the day settings, and apart from them the timer settings, are PATCHes of the student's own
//   user_settings row (the server stamps when the timer settings changed).
import { ApiError, requestJson } from './api.ts';
import { sessionClientId } from './model.ts';
import type { OutboxOp, OutboxSender } from './outbox.ts';
import { sessionRefusal } from './session-refusals.ts';

export interface BackendAccess {
  /** `/__backend` in the app; the backend's own URL in tests. */
  baseUrl: string;
  anonKey: () => Promise<string>;
  /** The current access token; `refresh` asks for a new one after a 401. */
  token: (refresh: boolean) => Promise<string | null>;
  userId: () => string | null;
}

interface CallInit {
  method?: string;
  body?: unknown;
  prefer?: string;
  keepalive?: boolean;
  /** Recognises the answers that refuse this write for good, whatever their status. */
  refusals?: (error: unknown) => ApiError | null;
}

export class BackendWriter implements OutboxSender {
  constructor(private readonly access: BackendAccess) {}

  async send(op: OutboxOp): Promise<void> {
    try {
      await this.sendOnce(op, false);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return this.sendOnce(op, true);
      throw error;
    }
  }

  private async call<T>(path: string, refresh: boolean, init: CallInit = {}): Promise<T> {
    const token = await this.access.token(refresh);
    if (!token) throw new ApiError(401, 'signed_out', 'Sign in again to sync.');
    const headers: Record<string, string> = { apikey: await this.access.anonKey() };
    if (init.prefer) headers.prefer = init.prefer;
    try {
      return await requestJson<T>(`${this.access.baseUrl}${path}`, {
        method: init.method,
        body: init.body,
        token,
        headers,
        keepalive: init.keepalive,
      });
    } catch (error) {
      throw init.refusals?.(error) ?? error;
    }
  }

  private async sendOnce(op: OutboxOp, refresh: boolean): Promise<void> {
    switch (op.kind) {
      case 'session': {
        const { session } = op;
        const startedAt = new Date(session.startedAt).toISOString();
        const clientId = sessionClientId(session);
        if (clientId === null) {
          const found = await this.call<unknown[]>(
            `/rest/v1/study_sessions?select=id&started_at=eq.${encodeURIComponent(startedAt)}&limit=1`,
            refresh,
          );
          if (found.length > 0) return;
        }
        await this.call('/rest/v1/rpc/record_study_session', refresh, {
          refusals: sessionRefusal,
          keepalive: true,
          body: {
            ...(clientId === null ? {} : { p_client_id: clientId }),
            p_started_at: startedAt,
            p_minutes: session.minutes,
            p_subject_id: session.subjectId,
            p_subject_name: session.subjectName,
            p_task_id: session.taskId,
            p_task_title: session.taskTitle,
            p_correct: session.correct,
            p_incorrect: session.incorrect,
            p_skipped: session.skipped,
          },
        });
        return;
      }
      case 'task-upsert': {
        const { task } = op;
        const userId = this.access.userId();
        if (!userId) throw new ApiError(401, 'signed_out', 'Sign in again to sync.');
        await this.call('/rest/v1/user_tasks?on_conflict=id', refresh, {
          prefer: 'resolution=merge-duplicates,return=minimal',
          body: [
            {
              id: task.id,
              user_id: userId,
              title: task.title,
              subject_id: task.subjectId,
              subject_name: op.subjectName,
              task_day: task.day,
              done: task.done,
              completed_at: task.completedAt === null ? null : new Date(task.completedAt).toISOString(),
            },
          ],
        });
        return;
      }
      case 'task-delete':
        await this.call(`/rest/v1/user_tasks?id=eq.${encodeURIComponent(op.taskId)}`, refresh, {
          method: 'DELETE',
          prefer: 'return=minimal',
        });
        return;
      case 'subject-upsert': {
        const userId = this.access.userId();
        if (!userId) throw new ApiError(401, 'signed_out', 'Sign in again to sync.');
        await this.call('/rest/v1/user_subjects?on_conflict=id', refresh, {
          prefer: 'resolution=merge-duplicates,return=minimal',
          body: [{ id: op.subject.id, user_id: userId, name: op.subject.name }],
        });
        return;
      }
      case 'subject-delete':
        await this.call(`/rest/v1/user_subjects?id=eq.${encodeURIComponent(op.subjectId)}`, refresh, {
          method: 'DELETE',
          prefer: 'return=minimal',
        });
        return;
      case 'settings':
      case 'timer-settings': {
        const userId = this.access.userId();
        if (!userId) throw new ApiError(401, 'signed_out', 'Sign in again to sync.');
        await this.call(`/rest/v1/user_settings?user_id=eq.${userId}`, refresh, {
          method: 'PATCH',
          prefer: 'return=minimal',
          body:
            op.kind === 'settings'
              ? { day_offset_hours: op.dayOffsetHours, timezone_offset_minutes: op.timezoneOffsetMinutes }
              : {
                  focus_minutes: op.timer.focusMinutes,
                  break_minutes: op.timer.breakMinutes,
                  cycles: op.timer.cycles,
                  daily_goal_minutes: op.timer.dailyGoalMinutes,
                },
        });
        return;
      }
    }
  }
}
