// One way for a test file to hold a stack (a localbase, a gateway, an attack stack) for all its
// tests: started before the file's first test, closed after its last, instead of a `let`, a
// beforeAll and an afterAll written out in every file.
//
//   const localbase = fileFixture(() => startLocalbaseStack());
//
// The value returned stands for the started stack: reading it before the file's tests start (at
// import time) throws, since nothing is started yet. Hooks the file registers later run after
// this one starts it and before it is closed, so they may use it.
import { afterAll, beforeAll } from 'vitest';

export function fileFixture<T extends { close(): Promise<void> }>(start: () => Promise<T>, timeoutMs = 120_000): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, timeoutMs);
  afterAll(async () => {
    await started?.close();
  });
  const current = (): T => {
    if (!started) throw new Error('a file fixture was used before the file started it (beforeAll)');
    return started;
  };
  return new Proxy({} as T, {
    get: (_target, key) => {
      const value: unknown = Reflect.get(current(), key);
      return typeof value === 'function' ? value.bind(current()) : value;
    },
    has: (_target, key) => Reflect.has(current(), key),
    ownKeys: () => Reflect.ownKeys(current()),
    getOwnPropertyDescriptor: (_target, key) => Reflect.getOwnPropertyDescriptor(current(), key),
  });
}
