// One group's live chat: the newest page of history, older pages on demand, new messages live,
// and after every (re)subscription a catch-up read of everything since shortly before the newest
// message held, merged by id, so a dropped socket leaves neither a gap nor a duplicate.
//
// Live messages come on the group's private broadcast topic, which the database sends every new
// message to (event INSERT) and every deletion (UPDATE, the tombstone replacing the message by
// id). Only members may ask for the topic or join it. When a membership ends the database draws a
// new topic and sends `rotate` on the old one: the feed asks for the topic again and moves, or,
// if it was its own member who left, is told the chat is not hers. A join the server refuses (the
// topic moved while the socket was away) is answered the same way, and a channel the server closes
// (its token changed and the topic is no longer hers to hear) is joined afresh.
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { z } from 'zod';
import { CHAT_MESSAGE_COLUMNS, chatMessage, type ChatMessage } from '#contracts/community-rows.ts';
import { client, CommunityError, communityError, rows } from './backend.ts';
import { catchUpFrom, mergeMessages } from './chat-log.ts';

/** A broadcast the database sends on the topic: the message as the chat shows it. */
const broadcastChange = z.object({ record: chatMessage });

export const PAGE_SIZE = 50;
/** Rows per catch-up read; a longer gap is read in several. */
const CATCH_UP_PAGE = 200;

export type FeedStatus = 'connecting' | 'live' | 'reconnecting' | 'no_access';

export interface FeedState {
  messages: ChatMessage[];
  status: FeedStatus;
  /** Older messages exist beyond the first one held. */
  hasOlder: boolean;
  loadingOlder: boolean;
  /** The last read failed (history or catch-up); the feed keeps retrying on reconnect. */
  error: CommunityError | null;
}

export class ChatFeed {
  private state: FeedState = { messages: [], status: 'connecting', hasOlder: false, loadingOlder: false, error: null };
  private channel: RealtimeChannel | undefined;
  private stopped = false;
  private catchingUp: Promise<void> | undefined;
  private catchUpAgain = false;
  private moving: Promise<void> | undefined;
  private joinRetry: ReturnType<typeof setTimeout> | undefined;
  private joinFailures = 0;

  constructor(
    readonly groupId: string,
    private readonly onChange: (state: FeedState) => void,
  ) {}

  get current(): FeedState {
    return this.state;
  }

  private set(next: Partial<FeedState>): void {
    if (this.stopped) return;
    this.state = { ...this.state, ...next };
    this.onChange(this.state);
  }

  private add(messages: ChatMessage[]): void {
    const merged = mergeMessages(
      this.state.messages,
      messages.filter((message) => message.group_id === this.groupId),
    );
    if (merged !== this.state.messages) this.set({ messages: merged });
  }

  async start(): Promise<void> {
    await this.join();
    await this.catchUp();
  }

  /** Asks for the group's current topic and subscribes to it; no_access when she is not a member. */
  private async join(): Promise<void> {
    const sb = await client();
    let topic: string;
    try {
      topic = await this.currentTopic(sb);
    } catch (error) {
      this.fail(error);
      if (this.state.status !== 'no_access') this.retryJoin();
      return;
    }
    if (this.stopped || this.channel) return;
    // supabase-js hands back an existing channel of the same topic instead of a new one, so one
    // feed per group and client: an older channel of the topic (one still leaving after the chat
    // was closed and opened again at once) is removed first.
    const leaving = sb.getChannels().find((channel) => channel.topic === `realtime:${topic}`);
    if (leaving) await sb.removeChannel(leaving);
    if (this.stopped || this.channel) return;
    const channel = sb
      .channel(topic, { config: { private: true } })
      .on('broadcast', { event: 'INSERT' }, ({ payload }) => this.receive(payload))
      .on('broadcast', { event: 'UPDATE' }, ({ payload }) => this.receive(payload))
      .on('broadcast', { event: 'rotate' }, () => void this.moveTopic())
      .subscribe((status) => {
        if (channel !== this.channel) return;
        if (status === 'SUBSCRIBED') {
          this.joinFailures = 0;
          this.set({ status: 'live' });
          // Whatever was posted while the socket was away (or between the history read and the join).
          void this.catchUp();
        } else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT' || status === 'CLOSED') {
          if (this.stopped || this.state.status === 'no_access') return;
          this.set({ status: 'reconnecting' });
          // A refused join: the topic may have moved while she was away, or she is no longer a member.
          if (status === 'CHANNEL_ERROR') void this.moveTopic();
          // Closed by the server (her token changed and the topic is no longer hers to hear): the
          // channel will not rejoin by itself, so the feed joins afresh, after the retry's delay.
          if (status === 'CLOSED') {
            this.channel = undefined;
            void sb.removeChannel(channel);
            this.retryJoin();
          }
        }
      });
    this.channel = channel;
  }

  /**
   * A join that could not learn the topic (the server out of reach), or a channel the server
   * closed, leaves no channel that retries by itself, so the feed tries again: after 1 s, then twice
   * as long each time, at most 15 s apart.
   */
  private retryJoin(): void {
    if (this.stopped || this.joinRetry) return;
    this.set({ status: 'reconnecting' });
    const delay = Math.min(1000 * 2 ** this.joinFailures, 15_000);
    this.joinFailures += 1;
    this.joinRetry = setTimeout(() => {
      this.joinRetry = undefined;
      void this.join();
    }, delay);
  }

  private receive(payload: unknown): void {
    const parsed = broadcastChange.safeParse(payload);
    if (parsed.success) this.add([parsed.data.record]);
  }

  private async currentTopic(sb: SupabaseClient): Promise<string> {
    const { data, error, status } = await sb.rpc('community_get_chat_topic', { p_group_id: this.groupId });
    if (error) throw communityError(error, status);
    const parsed = z.string().min(1).safeParse(data);
    if (!parsed.success) throw new CommunityError('unexpected_answer', 'The chat topic was not what this app expects.');
    return parsed.data;
  }

  /**
   * Moves to the group's current topic when it is no longer the one joined. One check at a time; a
   * check that cannot reach the server leaves the channel to its own retries.
   */
  private moveTopic(): Promise<void> {
    this.moving ??= (async () => {
      try {
        const sb = await client();
        const topic = await this.currentTopic(sb);
        const joined = this.channel;
        if (this.stopped || !joined || joined.topic === `realtime:${topic}`) return;
        this.channel = undefined;
        await sb.removeChannel(joined);
        await this.join();
      } catch (error) {
        if (error instanceof CommunityError && error.code === 'not_group_member') {
          this.fail(error);
          const joined = this.channel;
          this.channel = undefined;
          if (joined) await (await client()).removeChannel(joined);
        }
      } finally {
        this.moving = undefined;
      }
    })();
    return this.moving;
  }

  /** Reads what is missing at the newest end: the newest page when nothing is held yet. */
  catchUp(): Promise<void> {
    if (this.catchingUp) {
      this.catchUpAgain = true;
      return this.catchingUp;
    }
    this.catchingUp = this.readNewest()
      .then(() => this.set({ error: null }))
      .catch((error: unknown) => this.fail(error))
      .finally(() => {
        this.catchingUp = undefined;
        if (this.catchUpAgain && !this.stopped) {
          this.catchUpAgain = false;
          void this.catchUp();
        }
      });
    return this.catchingUp;
  }

  private async readNewest(): Promise<void> {
    const sb = await client();
    if (this.state.messages.length === 0) {
      const page = await this.history(sb, null);
      this.add(page);
      this.set({ hasOlder: page.length === PAGE_SIZE });
      return;
    }
    let from = catchUpFrom(this.state.messages);
    for (;;) {
      const read = await rows(
        sb
          .from('group_chat_messages')
          .select(CHAT_MESSAGE_COLUMNS)
          .eq('group_id', this.groupId)
          .gte('created_at', from)
          .order('created_at', { ascending: true })
          .order('id', { ascending: true })
          .limit(CATCH_UP_PAGE),
        chatMessage,
      );
      this.add(read);
      const last = read.at(-1);
      if (read.length < CATCH_UP_PAGE || !last) return;
      from = last.created_at;
    }
  }

  private async history(sb: SupabaseClient, before: string | null): Promise<ChatMessage[]> {
    const { data, error, status } = await sb.rpc('community_get_group_messages', {
      p_group_id: this.groupId,
      p_limit: PAGE_SIZE,
      p_before: before,
    });
    if (error) throw communityError(error, status);
    const parsed = z.array(chatMessage).safeParse(data);
    if (!parsed.success)
      throw new CommunityError('unexpected_answer', 'The chat history was not what this app expects.');
    return parsed.data;
  }

  async loadOlder(): Promise<void> {
    const oldest = this.state.messages[0];
    if (!oldest || this.state.loadingOlder || !this.state.hasOlder) return;
    this.set({ loadingOlder: true });
    try {
      const page = await this.history(await client(), oldest.created_at);
      this.add(page);
      this.set({ hasOlder: page.length === PAGE_SIZE, error: null });
    } catch (error) {
      this.fail(error);
    } finally {
      this.set({ loadingOlder: false });
    }
  }

  /** Posts a message; it shows at once (the realtime copy of it is merged away by id). */
  async send(content: string): Promise<ChatMessage> {
    const { data, error, status } = await (
      await client()
    ).rpc('community_send_group_message', { p_group_id: this.groupId, p_content: content });
    if (error) {
      const failure = communityError(error, status);
      if (failure.code === 'not_group_member') this.set({ status: 'no_access' });
      throw failure;
    }
    const parsed = chatMessage.safeParse(data);
    if (!parsed.success)
      throw new CommunityError('unexpected_answer', 'The sent message came back in a shape this app does not expect.');
    this.add([parsed.data]);
    return parsed.data;
  }

  /** Deletes a message (the sender's own; any, for owners, moderators and admins): it becomes a tombstone at once. */
  async remove(messageId: string): Promise<void> {
    const { data, error, status } = await (await client()).rpc('delete_chat_message', { p_message_id: messageId });
    if (error) throw communityError(error, status);
    const parsed = chatMessage.safeParse(data);
    if (parsed.success) this.add([parsed.data]);
  }

  private fail(error: unknown): void {
    const failure = error instanceof CommunityError ? error : new CommunityError('unknown', String(error));
    if (failure.code === 'not_group_member') this.set({ status: 'no_access', error: failure });
    else this.set({ error: failure });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.joinRetry);
    const channel = this.channel;
    this.channel = undefined;
    if (channel) await (await client()).removeChannel(channel);
  }
}
