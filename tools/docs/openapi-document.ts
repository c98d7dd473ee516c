// docs/openapi.json: the gateway's OpenAPI document, generated from its route schemas by building a
// gateway as the tests do (no backend, nothing listening) and formatted as Prettier formats JSON, so
// the committed file passes `npm run lint:format`. `npm run docs:api` writes it; a test
// (gateway/test/openapi.test.ts) fails when the committed file differs from what this produces.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { format } from 'prettier';
import { repoRoot } from '#db/paths.ts';
import { fullDocument } from '#gateway/src/openapi/openapi-routes.ts';
import { startTestGateway } from '#gateway/test/helpers.ts';

export const OPENAPI_FILE = path.join(repoRoot, 'docs', 'openapi.json');

export async function renderOpenApiDocument(): Promise<string> {
  const gateway = await startTestGateway();
  try {
    await gateway.app.ready();
    const text = JSON.stringify(fullDocument(gateway.app));
    return await format(text, { parser: 'json', filepath: OPENAPI_FILE, printWidth: 120 });
  } finally {
    await gateway.close();
  }
}

export async function readCommittedDocument(): Promise<string> {
  return readFile(OPENAPI_FILE, 'utf8');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  await writeFile(OPENAPI_FILE, await renderOpenApiDocument());
  console.log(`wrote ${path.relative(repoRoot, OPENAPI_FILE)}`);
}
