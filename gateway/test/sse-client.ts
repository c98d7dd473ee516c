// A minimal EventSource for tests and the benchmark: a real HTTP connection to /__pip/events that
// parses frames and lets a test wait for the next event of a given name.
import http from 'node:http';

export interface SseEvent {
  event: string;
  data: unknown;
}

export interface SseClient {
  events: SseEvent[];
  next(event: string, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
}

export function openSse(url: string): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { accept: 'text/event-stream' }, agent: false }, (response) => {
      const events: SseEvent[] = [];
      const waiters: Array<{ event: string; resolve: (event: SseEvent) => void }> = [];
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let boundary: number;
        while ((boundary = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const name = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (!name || data === undefined) continue;
          const event = { event: name, data: JSON.parse(data) };
          const waiter = waiters.findIndex((candidate) => candidate.event === name);
          if (waiter !== -1) waiters.splice(waiter, 1)[0]?.resolve(event);
          else events.push(event);
        }
      });
      resolve({
        events,
        next(event, timeoutMs = 2_000) {
          const queued = events.findIndex((candidate) => candidate.event === event);
          if (queued !== -1) return Promise.resolve(events.splice(queued, 1)[0] as SseEvent);
          return new Promise((resolveEvent, rejectEvent) => {
            const timer = setTimeout(
              () => rejectEvent(new Error(`no ${event} event within ${timeoutMs} ms`)),
              timeoutMs,
            );
            waiters.push({ event, resolve: (value) => (clearTimeout(timer), resolveEvent(value)) });
          });
        },
        close: () => request.destroy(),
      });
    });
    request.on('error', reject);
  });
}
