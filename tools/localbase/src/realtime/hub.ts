// The realtime hub: every joined channel's postgres_changes bindings (the one place realtime keeps
// state), and delivery. A change goes to a channel only if a binding matches it AND a SELECT of the
// row by primary key, run under that subscriber's role and claims, finds it: RLS decides.
import type pg from 'pg';
import type { VerifiedToken } from '../jwt.ts';
import { SessionEndedError, withRequestTransaction } from '../request-transaction.ts';
import { quoteIdent } from '../rest/sql.ts';
import { drainChanges, tableShape, type Change, type TableShape } from './capture.ts';
import { rowMatches, type RowFilter } from './filter.ts';
import type { Frame } from './frames.ts';

export interface Binding {
  id: number;
  event: string;
  schema: string;
  table: string | undefined;
  filter: RowFilter | undefined;
}

export interface ChannelSubscription {
  topic: string;
  joinRef: string | null;
  bindings: Binding[];
  token: VerifiedToken;
  /** When the join was accepted: older changes still in the queue are not this channel's. */
  joinedAt: Date;
  /** Sends in the socket's own serializer. */
  send(frame: Frame): void;
}

/** Drain cadence while someone listens; with nobody listening the queue is only emptied. */
const ACTIVE_POLL_MS = 200;
const IDLE_POLL_MS = 5000;

export class RealtimeHub {
  private readonly subscriptions = new Set<ChannelSubscription>();
  private readonly shapes = new Map<string, TableShape>();
  private draining: Promise<void> | undefined;
  private pokeAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private lastBindingId = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly log: (error: unknown) => void,
  ) {}

  start(): void {
    this.schedule();
  }

  stop(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  add(subscription: ChannelSubscription): void {
    this.subscriptions.add(subscription);
    this.schedule();
  }

  remove(subscription: ChannelSubscription): void {
    this.subscriptions.delete(subscription);
  }

  /** Binding ids are unique per server, so a frame's `ids` never names another channel's binding. */
  assignBindingId(): number {
    this.lastBindingId += 1;
    return this.lastBindingId;
  }

  /** Forget cached table shapes (after DDL). */
  forgetShapes(): void {
    this.shapes.clear();
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    const delay = this.subscriptions.size > 0 ? ACTIVE_POLL_MS : IDLE_POLL_MS;
    this.timer = setTimeout(() => void this.drain(), delay);
    this.timer.unref();
  }

  /**
   * A write committed: deliver its changes now if anyone listens. With nobody listening the idle
   * timer empties the queue, so writes pay no extra query.
   */
  poke(): Promise<void> {
    return this.subscriptions.size > 0 ? this.drain() : Promise.resolve();
  }

  /** Drains the queue now (coalescing overlapping calls) and delivers what it held. */
  private drain(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.draining) {
      this.pokeAgain = true;
      return this.draining;
    }
    this.draining = this.drainAndDeliver()
      .catch((error: unknown) => this.log(error))
      .finally(() => {
        this.draining = undefined;
        if (this.pokeAgain) {
          this.pokeAgain = false;
          void this.drain();
        } else {
          this.schedule();
        }
      });
    return this.draining;
  }

  private async drainAndDeliver(): Promise<void> {
    const changes = await drainChanges(this.pool);
    for (const change of changes) {
      if (this.subscriptions.size === 0) return;
      await this.deliver(change);
    }
  }

  private async shapeOf(change: Change): Promise<TableShape> {
    const key = `${change.schema_name}.${change.table_name}`;
    let shape = this.shapes.get(key);
    if (!shape) {
      shape = await tableShape(this.pool, change.schema_name, change.table_name);
      this.shapes.set(key, shape);
    }
    return shape;
  }

  private async deliver(change: Change): Promise<void> {
    const shape = await this.shapeOf(change);
    for (const subscription of [...this.subscriptions]) {
      if (change.committed_at < subscription.joinedAt) continue;
      const ids = subscription.bindings
        .filter((binding) => bindingMatches(binding, change))
        .map((binding) => binding.id);
      if (ids.length === 0) continue;
      if (!(await this.canRead(subscription.token, change, shape))) continue;
      subscription.send({
        joinRef: subscription.joinRef,
        ref: null,
        topic: subscription.topic,
        event: 'postgres_changes',
        payload: {
          ids,
          data: {
            schema: change.schema_name,
            table: change.table_name,
            commit_timestamp: change.committed_at.toISOString(),
            type: change.event,
            columns: shape.columns,
            record: change.record,
            errors: null,
          },
        },
      });
    }
  }

  /** The subscriber's own SELECT of the row: RLS and grants decide, as for the Data API. */
  private async canRead(token: VerifiedToken, change: Change, shape: TableShape): Promise<boolean> {
    if (shape.primaryKey.length === 0) return false;
    const exp = token.claims.exp;
    if (exp !== undefined && exp * 1000 < Date.now()) return false;
    const where = shape.primaryKey.map((column, index) => `${quoteIdent(column)} = $${index + 1}`).join(' and ');
    const values = shape.primaryKey.map((column) => {
      const value = change.record[column];
      return value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
    });
    try {
      return await withRequestTransaction(
        this.pool,
        { role: token.role, claims: token.claims, method: 'GET', path: '/realtime/v1', headers: {}, readOnly: true },
        async (client) => {
          const result = await client.query(
            `select 1 from ${quoteIdent(change.schema_name)}.${quoteIdent(change.table_name)} where ${where}`,
            values,
          );
          return (result.rowCount ?? 0) > 0;
        },
      );
    } catch (error) {
      // No grant, an ended session, a dropped table or column: this subscriber may not see the
      // row, which is an answer, not a failure. Anything else is logged before it is taken as no.
      if (!isExpectedDenial(error)) this.log(error);
      return false;
    }
  }
}

/** Errors that mean "this subscriber may not read the row" rather than that something broke. */
const DENIAL_SQLSTATES = new Set(['42501', '42P01', '42703']);

function isExpectedDenial(error: unknown): boolean {
  if (error instanceof SessionEndedError) return true;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && DENIAL_SQLSTATES.has(code);
}

function bindingMatches(binding: Binding, change: Change): boolean {
  if (binding.event !== '*' && binding.event.toUpperCase() !== change.event) return false;
  if (binding.schema !== '*' && binding.schema !== change.schema_name) return false;
  if (binding.table !== undefined && binding.table !== '*' && binding.table !== change.table_name) return false;
  return rowMatches(binding.filter, change.record);
}
