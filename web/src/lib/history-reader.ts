// Reads a student's history from the backend's Data API (through /__backend, with her token, so
// row-level security shows her own rows only): every study session, task and subject, page by
// page, and her timer settings. A backend older than subjects and timer settings on the server
// (no such table or columns) answers null for those, and the device keeps its own.
import { ApiError, requestJson } from './api.ts';
import type { BackendAccess } from './backend-writer.ts';
import {
  SESSION_COLUMNS,
  SUBJECT_COLUMNS,
  TASK_COLUMNS,
  TIMER_COLUMNS,
  type RemoteSession,
  type RemoteSubject,
  type RemoteTask,
  type RemoteTimer,
} from './history-merge.ts';

const PAGE = 1000;
/** The session columns of a backend that does not void sessions (no voided_at, void_reason). */
const SESSION_COLUMNS_WITHOUT_VOIDING = SESSION_COLUMNS.replace(',voided_at,void_reason', '');

export interface History {
  sessions: RemoteSession[];
  tasks: RemoteTask[];
  /** Null: the backend keeps no subjects. */
  subjects: RemoteSubject[] | null;
  /** Null: the backend keeps no timer settings (or has no settings row for her yet). */
  timer: RemoteTimer | null;
}

/** The Data API's answers for a table or column the backend does not have. */
function isMissing(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 404 || error.status === 400);
}

export class HistoryReader {
  constructor(private readonly access: BackendAccess) {}

  private async page<T>(path: string): Promise<T[]> {
    const headers = { apikey: await this.access.anonKey() };
    const url = `${this.access.baseUrl}${path}`;
    try {
      return await requestJson<T[]>(url, { token: await this.access.token(false), headers });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      return requestJson<T[]>(url, { token: await this.access.token(true), headers });
    }
  }

  private async all<T>(table: string, query: string): Promise<T[]> {
    const rows: T[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.page<T>(`/rest/v1/${table}?${query}&limit=${PAGE}&offset=${offset}`);
      rows.push(...page);
      if (page.length < PAGE) return rows;
    }
  }

  private async sessions(): Promise<RemoteSession[]> {
    const order = 'order=started_at.asc,id.asc';
    try {
      return await this.all<RemoteSession>('study_sessions', `select=${SESSION_COLUMNS}&${order}`);
    } catch (error) {
      // A backend without the voiding columns answers 400 (undefined column): its sessions all count.
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      const rows = await this.all<RemoteSession>(
        'study_sessions',
        `select=${SESSION_COLUMNS_WITHOUT_VOIDING}&${order}`,
      );
      return rows.map((row) => ({ ...row, voided_at: null, void_reason: null }));
    }
  }

  private async subjects(): Promise<RemoteSubject[] | null> {
    try {
      return await this.all<RemoteSubject>('user_subjects', `select=${SUBJECT_COLUMNS}&order=created_at.asc,id.asc`);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  private async timer(): Promise<RemoteTimer | null> {
    try {
      const [row] = await this.page<RemoteTimer>(`/rest/v1/user_settings?select=${TIMER_COLUMNS}&limit=1`);
      return row ?? null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async read(): Promise<History> {
    const [sessions, tasks, subjects, timer] = await Promise.all([
      this.sessions(),
      this.all<RemoteTask>('user_tasks', `select=${TASK_COLUMNS}&order=created_at.asc,id.asc`),
      this.subjects(),
      this.timer(),
    ]);
    return { sessions, tasks, subjects, timer };
  }
}
