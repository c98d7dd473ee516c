// The class of the soak bench (soak.bench.ts): students who use the server as the app does for a
// whole lesson, from addresses of their own (127.0.x.y, so the per-address limits of the relay and
// sign-in count each device apart, as they would on a LAN).
//
// Each student signs up (straight to localbase, as the classroom bench does), joins one of the
// groups and keeps open what an open app keeps open: one realtime socket through the gateway's
// /__backend proxy with two channels (her group's private chat topic, and postgres_changes on
// presence_feed under a random channel name, as web/src/lib/community/presence-feed.ts joins it),
// with Phoenix's heartbeat every 25 s; and her focus page's event stream (/__pip/events) on a
// channel paired with POST /__pip/pair. One student in PHONE_EVERY has a phone that long-polls
// /api/pip/state?after= and sends an answer now and then.
//
// Every ~everyMs she acts (the mix in ACTIONS: Data API reads and writes, chat, presence
// heartbeats, the overview and chat history, the leaderboard, the gateway's bootstrap and backups,
// study sessions, timer snapshots, the server's ping). Every ~reloadEveryMs she reloads the page:
// the socket and the event stream close and open again (re-paired on the same channel), and her
// session is renewed (a refresh-token grant; every RELOADS_PER_SIGN_IN-th reload a full sign-in
// through /__auth/login instead). Opening and closing is where per-connection state would be left
// behind, so the lesson does it all the time.
import http from 'node:http';
import { WebSocket } from 'ws';

export interface ClassOptions {
  gatewayUrl: string;
  localbaseUrl: string;
  anonKey: string;
  students: number;
  groups: number;
  /** Mean time between two actions of one student. */
  everyMs: number;
  /** Mean time between two reloads of one student's page. */
  reloadEveryMs: number;
}

/** One phone per this many students. */
const PHONE_EVERY = 4;
/** A full sign-in (a bcrypt hash) instead of a refresh-token grant on every this-many-th reload. */
const RELOADS_PER_SIGN_IN = 5;
/** realtime-js's heartbeat interval. */
const SOCKET_HEARTBEAT_MS = 25_000;
/** The phone remote's answers: one every this many ms or so. */
const PHONE_ACTION_EVERY_MS = 15_000;

type Kind =
  | 'read tasks'
  | 'write task'
  | 'chat message'
  | 'presence heartbeat'
  | 'overview'
  | 'chat history'
  | 'leaderboard'
  | 'bootstrap'
  | 'backup'
  | 'study session'
  | 'timer snapshot'
  | 'ping'
  | 'reload'
  | 'phone';

/** What a student does on her turn, and how often (the weights sum to 100). */
const ACTIONS: readonly [Kind, number][] = [
  ['read tasks', 28],
  ['write task', 12],
  ['chat message', 10],
  ['presence heartbeat', 8],
  ['overview', 6],
  ['chat history', 6],
  ['leaderboard', 5],
  ['bootstrap', 5],
  ['backup', 4],
  ['study session', 3],
  ['timer snapshot', 5],
  ['ping', 8],
];

interface Answer {
  status: number;
  body: string;
}

interface Student {
  index: number;
  email: string;
  password: string;
  id: string;
  token: string;
  refreshToken: string;
  group: number;
  address: string;
  agent: http.Agent;
  socket?: WebSocket | undefined;
  joinedAt?: number | undefined;
  stream?: http.ClientRequest | undefined;
  pipChannel?: string | undefined;
  pipCode?: string | undefined;
  reloads: number;
  /** When her next study session may start: sessions of one student must not overlap. */
  nextSessionAt: number;
}

/** Counts of what happened during the lesson (never the latencies: this bench is about memory). */
export interface LessonCounts {
  requests: Map<Kind, number>;
  errors: Map<Kind, number>;
  firstErrors: string[];
  chatSent: number;
  deliveriesExpected: number;
  deliveriesReceived: number;
  reloads: number;
  socketsOpen(): number;
  streamsOpen(): number;
}

const MESSAGE_MARK = /soak message (\d+)\b/;

export class SoakClass {
  private readonly students: Student[] = [];
  private groupIds: string[] = [];
  private topics: string[] = [];
  private messageNumber = 0;
  /** Per chat message: the students expected to hear it (joined when it was sent), and who did. */
  private readonly messages = new Map<number, { expected: Set<number>; heard: Set<number> }>();
  readonly counts: LessonCounts;
  private readonly sharedAgent = new http.Agent({ keepAlive: true, maxSockets: 32 });

  constructor(private readonly options: ClassOptions) {
    this.counts = {
      requests: new Map(),
      errors: new Map(),
      firstErrors: [],
      chatSent: 0,
      deliveriesExpected: 0,
      deliveriesReceived: 0,
      reloads: 0,
      socketsOpen: () => this.students.filter((student) => student.socket?.readyState === WebSocket.OPEN).length,
      streamsOpen: () => this.students.filter((student) => student.stream && !student.stream.destroyed).length,
    };
  }

  // ---- HTTP ------------------------------------------------------------------------------------

  private call(
    student: Student | undefined,
    base: string,
    method: string,
    route: string,
    options: { token?: string | undefined; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    return new Promise((resolve) => {
      const outgoing = http.request(
        `${base}${route}`,
        {
          method,
          agent: student?.agent ?? this.sharedAgent,
          headers: {
            apikey: this.options.anonKey,
            ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
            ...(payload ? { 'content-type': 'application/json' } : {}),
            ...options.headers,
          },
          timeout: 60_000,
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error('no answer in 60 s')));
      outgoing.on('error', (error) => resolve({ status: 0, body: error.message }));
      outgoing.end(payload);
    });
  }

  private async must(answer: Promise<Answer>, what: string): Promise<string> {
    const { status, body } = await answer;
    if (status < 200 || status >= 300) throw new Error(`${what}: ${status} ${body.slice(0, 300)}`);
    return body;
  }

  private count(kind: Kind, ok: boolean, detail = ''): void {
    this.counts.requests.set(kind, (this.counts.requests.get(kind) ?? 0) + 1);
    if (ok) return;
    this.counts.errors.set(kind, (this.counts.errors.get(kind) ?? 0) + 1);
    if (this.counts.firstErrors.length < 5) this.counts.firstErrors.push(`${kind}: ${detail.slice(0, 200)}`);
  }

  private record(kind: Kind, answer: Answer, expected = (status: number) => status >= 200 && status < 300): Answer {
    this.count(kind, expected(answer.status), `${answer.status} ${answer.body}`);
    return answer;
  }

  // ---- arriving ----------------------------------------------------------------------------------

  /** Signs the class up, makes the groups, joins them, and opens each student's socket and stream. */
  async arrive(): Promise<void> {
    const { options } = this;
    for (let start = 0; start < options.students; start += 8) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(8, options.students - start) }, (_, offset) => this.signUp(start + offset)),
      );
      this.students.push(...batch);
    }
    for (let group = 0; group < options.groups; group += 1) {
      const owner = this.students[group] as Student;
      const body = await this.must(
        this.call(owner, options.gatewayUrl, 'POST', '/__backend/rest/v1/groups?select=id', {
          token: owner.token,
          body: { name: `Soak group ${group}`, visibility: 'public', join_policy: 'open', created_by: owner.id },
          headers: { prefer: 'return=representation' },
        }),
        'group',
      );
      this.groupIds.push((JSON.parse(body) as { id: string }[])[0]?.id as string);
    }
    for (let start = options.groups; start < this.students.length; start += 16) {
      await Promise.all(
        this.students.slice(start, start + 16).map((student) =>
          this.must(
            this.call(student, options.gatewayUrl, 'POST', '/__backend/rest/v1/rpc/community_join_group', {
              token: student.token,
              body: { p_group_id: this.groupIds[student.group] },
            }),
            'join',
          ),
        ),
      );
    }
    this.topics = await Promise.all(
      this.groupIds.map(
        async (groupId, group) =>
          JSON.parse(
            await this.must(
              this.call(
                this.students[group],
                options.gatewayUrl,
                'POST',
                '/__backend/rest/v1/rpc/community_get_chat_topic',
                { token: this.students[group]?.token, body: { p_group_id: groupId } },
              ),
              'topic',
            ),
          ) as string,
      ),
    );
    for (let start = 0; start < this.students.length; start += 20) {
      await Promise.all(
        this.students.slice(start, start + 20).map(async (student) => {
          await this.openSocket(student);
          await this.openFocusPage(student);
        }),
      );
    }
  }

  private async signUp(index: number): Promise<Student> {
    const email = `soak-${index}-${process.pid}@soak.test`;
    const password = `a soak passphrase ${index}`;
    // Straight to localbase: the gateway's sign-up is limited per address, and this is the class arriving.
    const body = await this.must(
      this.call(undefined, this.options.localbaseUrl, 'POST', '/auth/v1/signup', { body: { email, password } }),
      'signup',
    );
    const session = JSON.parse(body) as { access_token: string; refresh_token: string; user: { id: string } };
    const address = studentAddress(index);
    return {
      index,
      email,
      password,
      id: session.user.id,
      token: session.access_token,
      refreshToken: session.refresh_token,
      group: index % this.options.groups,
      address,
      agent: new http.Agent({ keepAlive: true, maxSockets: 4, localAddress: address }),
      reloads: 0,
      // Her sessions go back in time from a year ago, one hour apart: never in the future, never overlapping.
      nextSessionAt: Date.now() - 365 * 24 * 3600_000,
    };
  }

  // ---- what an open app keeps open ---------------------------------------------------------------

  private async openSocket(student: Student): Promise<void> {
    const socket = new WebSocket(
      `${this.options.gatewayUrl.replace('http', 'ws')}/__backend/realtime/v1/websocket?apikey=${this.options.anonKey}&vsn=2.0.0`,
      { localAddress: student.address },
    );
    await withDeadline(
      new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject)),
      'realtime socket open',
      () => socket.terminate(),
    );
    let replies = 0;
    const joined = new Promise<void>((resolve, reject) => {
      socket.on('message', (raw) => {
        const text = String(raw);
        const [, , , event, payload] = JSON.parse(text) as [unknown, unknown, string, string, { status?: string }];
        if (event === 'phx_reply' && payload.status === 'ok') {
          replies += 1;
          if (replies === 2) resolve();
        } else if (event === 'phx_reply' && replies < 2) {
          reject(new Error(`join refused: ${text.slice(0, 300)}`));
        } else if (event === 'broadcast') {
          const number = Number(MESSAGE_MARK.exec(text)?.[1]);
          const message = this.messages.get(number);
          if (message?.expected.has(student.index) && !message.heard.has(student.index)) {
            message.heard.add(student.index);
            this.counts.deliveriesReceived += 1;
          }
        }
      });
    });
    socket.send(
      JSON.stringify([
        '1',
        '1',
        `realtime:${this.topics[student.group]}`,
        'phx_join',
        {
          config: { private: true, broadcast: { self: false }, presence: { enabled: false } },
          access_token: student.token,
        },
      ]),
    );
    socket.send(
      JSON.stringify([
        '2',
        '2',
        `realtime:presence-feed:${Math.random().toString(36).slice(2)}`,
        'phx_join',
        {
          config: {
            private: false,
            broadcast: { self: false },
            presence: { enabled: false, key: '' },
            postgres_changes: [{ event: '*', schema: 'public', table: 'presence_feed' }],
          },
          access_token: student.token,
        },
      ]),
    );
    await withDeadline(joined, 'realtime joins', () => socket.terminate());
    const heartbeat = setInterval(() => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify([null, 'hb', 'phoenix', 'heartbeat', {}]));
    }, SOCKET_HEARTBEAT_MS);
    heartbeat.unref();
    socket.once('close', () => clearInterval(heartbeat));
    student.socket = socket;
    student.joinedAt = performance.now();
  }

  private async openFocusPage(student: Student): Promise<void> {
    const pairing = JSON.parse(
      await this.must(
        this.call(student, this.options.gatewayUrl, 'POST', '/__pip/pair', {
          body: student.pipChannel ? { channel: student.pipChannel } : {},
        }),
        'pair',
      ),
    ) as { code: string; channel: string };
    student.pipChannel = pairing.channel;
    student.pipCode = pairing.code;
    let request: http.ClientRequest | undefined;
    student.stream = await withDeadline(
      new Promise<http.ClientRequest>((resolve, reject) => {
        request = http.get(
          `${this.options.gatewayUrl}/__pip/events?channel=${pairing.channel}`,
          { agent: false, localAddress: student.address },
          (response) => {
            if (response.statusCode !== 200) return reject(new Error(`event stream: HTTP ${response.statusCode}`));
            response.once('data', () => resolve(request as http.ClientRequest));
            response.resume();
          },
        );
        request.on('error', reject);
      }),
      'event stream open',
      () => request?.destroy(),
    );
  }

  private async closeWhatIsOpen(student: Student): Promise<void> {
    student.joinedAt = undefined;
    const socket = student.socket;
    student.socket = undefined;
    if (socket && socket.readyState !== WebSocket.CLOSED) {
      const closed = new Promise((resolve) => socket.once('close', resolve));
      socket.close();
      await withDeadline(closed, 'realtime socket close', () => socket.terminate()).catch(() => undefined);
    }
    student.stream?.destroy();
    student.stream = undefined;
  }

  // ---- the lesson ----------------------------------------------------------------------------------

  /** Every student acts on her own schedule until `endsAt` (performance.now()). */
  async lesson(endsAt: number): Promise<void> {
    const { everyMs, reloadEveryMs } = this.options;
    const phones = this.students
      .filter((student) => student.index % PHONE_EVERY === 0)
      .map((student) => this.phone(student, endsAt));
    await Promise.all([
      ...phones,
      ...this.students.map(async (student) => {
        await sleep(Math.random() * everyMs);
        let nextReload = performance.now() + reloadEveryMs * (0.5 + Math.random());
        while (performance.now() < endsAt) {
          const next = performance.now() + everyMs * (0.75 + Math.random() / 2);
          if (performance.now() >= nextReload) {
            await this.reload(student);
            nextReload = performance.now() + reloadEveryMs * (0.75 + Math.random() / 2);
          } else {
            await this.act(student);
          }
          await sleep(Math.max(0, next - performance.now()));
        }
      }),
    ]);
    for (const message of this.messages.values()) this.counts.deliveriesExpected += message.expected.size;
  }

  private async act(student: Student): Promise<void> {
    const { gatewayUrl } = this.options;
    const rest = (method: string, route: string, body?: unknown, headers?: Record<string, string>) =>
      this.call(student, gatewayUrl, method, `/__backend/rest/v1${route}`, {
        token: student.token,
        body,
        headers: headers ?? {},
      });
    const kind = pick(ACTIONS);
    switch (kind) {
      case 'read tasks':
        this.record(kind, await rest('GET', '/user_tasks?select=*&order=created_at.desc&limit=20'));
        return;
      case 'write task':
        this.record(kind, await rest('POST', '/user_tasks', { user_id: student.id, title: `task ${Date.now()}` }));
        return;
      case 'chat message': {
        this.messageNumber += 1;
        const number = this.messageNumber;
        const expected = new Set(
          this.students
            .filter((member) => member.group === student.group && member !== student && member.joinedAt !== undefined)
            .map((member) => member.index),
        );
        this.messages.set(number, { expected, heard: new Set() });
        this.counts.chatSent += 1;
        this.record(
          kind,
          await rest('POST', '/rpc/community_send_group_message', {
            p_group_id: this.groupIds[student.group],
            p_content: `soak message ${number} from ${student.index}`,
          }),
        );
        return;
      }
      case 'presence heartbeat':
        this.record(
          kind,
          await rest('POST', '/rpc/community_heartbeat', {
            p_state: Math.random() < 0.8 ? 'studying' : 'break',
            p_subject_id: 'anatomy',
            p_subject_name: 'Anatomy',
            p_task_id: null,
            p_task_title: null,
            p_session_started_at: new Date(Date.now() - 600_000).toISOString(),
          }),
        );
        return;
      case 'overview':
        this.record(kind, await rest('POST', '/rpc/community_get_overview', {}));
        return;
      case 'chat history':
        this.record(
          kind,
          await rest('POST', '/rpc/community_get_group_messages', { p_group_id: this.groupIds[student.group] }),
        );
        return;
      case 'leaderboard':
        this.record(
          kind,
          await this.call(student, gatewayUrl, 'POST', '/__leaderboard', {
            token: student.token,
            body: {
              period: pick([
                ['day', 1],
                ['week', 2],
                ['all', 1],
              ]),
            },
          }),
        );
        return;
      case 'bootstrap':
        this.record(kind, await this.call(student, gatewayUrl, 'GET', '/__auth/bootstrap', { token: student.token }));
        return;
      case 'backup':
        this.record(
          kind,
          await this.call(student, gatewayUrl, 'POST', '/__auth/backup', {
            token: student.token,
            body: {
              source: 'auto',
              payload: {
                subjects: [{ id: 'anatomy', name: 'Anatomy' }],
                tasks: Array.from({ length: 20 }, (_, index) => ({ id: `t${index}`, title: `Chapter ${index}` })),
              },
            },
          }),
        );
        return;
      case 'study session': {
        const startedAt = student.nextSessionAt;
        student.nextSessionAt += 3600_000;
        this.record(
          kind,
          await rest('POST', '/rpc/record_study_session', {
            p_started_at: new Date(startedAt).toISOString(),
            p_minutes: 25,
            p_subject_id: 'anatomy',
            p_subject_name: 'Anatomy',
            p_correct: 5,
            p_incorrect: 1,
            p_client_id: crypto.randomUUID(),
          }),
        );
        return;
      }
      case 'timer snapshot': {
        const running = Math.random() < 0.7;
        this.record(
          kind,
          await this.call(student, gatewayUrl, 'POST', '/__pip/state', {
            token: student.token,
            headers: { 'x-pip-channel': student.pipChannel ?? '' },
            body: {
              phase: running ? 'focus' : 'idle',
              running,
              remainingMs: 1_500_000,
              completionAtMs: running ? Date.now() + 1_500_000 : null,
              subject: { id: 'anatomy', name: 'Anatomy' },
              task: null,
              attempts: { correct: 3, incorrect: 1, skipped: 0 },
              target: 20,
              updatedAt: Date.now(),
            },
          }),
        );
        return;
      }
      case 'ping':
        this.record(kind, await this.call(student, gatewayUrl, 'GET', '/__app/ping'));
        return;
      default:
        throw new Error(`no action ${kind}`);
    }
  }

  /** The page reloads: everything closes, the session is renewed, everything opens again. */
  private async reload(student: Student): Promise<void> {
    this.counts.reloads += 1;
    student.reloads += 1;
    try {
      await this.closeWhatIsOpen(student);
      const { gatewayUrl } = this.options;
      if (student.reloads % RELOADS_PER_SIGN_IN === 0) {
        const body = await this.must(
          this.call(student, gatewayUrl, 'POST', '/__auth/login', {
            body: { username: student.email, password: student.password },
          }),
          'sign-in',
        );
        const { session } = JSON.parse(body) as { session: { access_token: string; refresh_token: string } };
        student.token = session.access_token;
        student.refreshToken = session.refresh_token;
      } else {
        const body = await this.must(
          this.call(student, gatewayUrl, 'POST', '/__backend/auth/v1/token?grant_type=refresh_token', {
            body: { refresh_token: student.refreshToken },
          }),
          'refresh',
        );
        const session = JSON.parse(body) as { access_token: string; refresh_token: string };
        student.token = session.access_token;
        student.refreshToken = session.refresh_token;
      }
      await this.must(this.call(student, gatewayUrl, 'GET', '/'), 'app shell');
      await this.openSocket(student);
      await this.openFocusPage(student);
      this.count('reload', true);
    } catch (error) {
      this.count('reload', false, (error as Error).message);
    }
  }

  /**
   * A phone paired with the student's page, from an address of its own: long polls for her timer,
   * and answers now and then. Her page keeps its channel and code across reloads.
   */
  private async phone(student: Student, endsAt: number): Promise<void> {
    const { gatewayUrl } = this.options;
    const device = {
      ...student,
      agent: new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: phoneAddress(student.index) }),
    };
    let after = 0;
    let nextAction = performance.now() + Math.random() * PHONE_ACTION_EVERY_MS;
    while (performance.now() < endsAt) {
      const headers = { 'x-pip-code': student.pipCode ?? '' };
      if (performance.now() >= nextAction) {
        nextAction = performance.now() + PHONE_ACTION_EVERY_MS * (0.5 + Math.random());
        this.record(
          'phone',
          await this.call(device, gatewayUrl, 'POST', '/api/pip/action', { headers, body: { action: 'correct' } }),
          (status) => status === 202,
        );
        continue;
      }
      const answer = this.record(
        'phone',
        await this.call(device, gatewayUrl, 'GET', `/api/pip/state?after=${after}`, { headers }),
      );
      if (answer.status === 200) after = (JSON.parse(answer.body) as { updatedAt: number | null }).updatedAt ?? 0;
      else await sleep(1_000);
    }
    device.agent.destroy();
  }

  /** Closes every socket and stream and lets the connections go. */
  async leave(): Promise<void> {
    await Promise.all(this.students.map((student) => this.closeWhatIsOpen(student)));
    for (const student of this.students) student.agent.destroy();
    this.sharedAgent.destroy();
  }
}

/** A student's own device address, and her phone's: one device each, as on a LAN. */
function studentAddress(index: number): string {
  return `127.0.${1 + Math.floor(index / 250)}.${1 + (index % 250)}`;
}

function phoneAddress(index: number): string {
  return `127.1.${1 + Math.floor(index / 250)}.${1 + (index % 250)}`;
}

/** Nothing a student waits for may hang the lesson: past OPEN_DEADLINE_MS it fails (and is counted). */
const OPEN_DEADLINE_MS = 30_000;

async function withDeadline<T>(promise: Promise<T>, what: string, giveUp: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      giveUp();
      reject(new Error(`${what}: nothing in ${OPEN_DEADLINE_MS / 1000} s`));
    }, OPEN_DEADLINE_MS);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function pick<T>(weighted: readonly (readonly [T, number])[]): T {
  const total = weighted.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = Math.random() * total;
  for (const [value, weight] of weighted) {
    roll -= weight;
    if (roll < 0) return value;
  }
  return (weighted.at(-1) as readonly [T, number])[0];
}
