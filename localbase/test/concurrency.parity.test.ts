// 50 supabase-js clients at once: on PGlite the pool of one serializes them, on PostgreSQL 15 the
// pool spreads them; either way every request gets its own transaction and its own role, so no
// answer leaks another user's rows and nothing fails.
import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { signedUpClient } from './clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const CLIENTS = 50;
const localbase = fileFixture(startLocalbaseStack);
let people: Awaited<ReturnType<typeof signedUpClient>>[];

beforeAll(async () => {
  people = [];
  // Sign-ups hash passwords (bcrypt); a few at a time keeps the setup short on two cores.
  for (let i = 0; i < CLIENTS; i += 10) {
    people.push(...(await Promise.all(Array.from({ length: 10 }, (_, j) => signedUpClient(localbase, `p${i + j}`)))));
  }
}, 120_000);

describe(`${CLIENTS} concurrent clients`, () => {
  it('each writes and reads its own rows at the same time, and sees only its own', async () => {
    const results = await Promise.all(
      people.map(async (person, index) => {
        const written = await person.client
          .from('user_tasks')
          .insert({ user_id: person.id, title: `task of ${index}` });
        const read = await person.client.from('user_tasks').select('title, user_id');
        return { written: written.status, read: read.data, error: read.error };
      }),
    );
    results.forEach((result, index) => {
      expect(result.written).toBe(201);
      expect(result.error).toBeNull();
      expect(result.read).toEqual([{ title: `task of ${index}`, user_id: people[index]?.id }]);
    });
  });
});
