// The one JSON error body of every gateway route (docs/api.md#errors): a machine code and a
// sentence, plus details that depend on the refusal (`problems`, `limit_bytes`, `retry_after_s`,
// `path`, ...). Route schemas declare it for their 4xx and 5xx answers, so the details pass through
// the response serialiser; a client reads `error` and `message` and may ignore the rest.
import { z } from 'zod';

export const errorBody = z
  .object({
    error: z.string().describe('A stable machine code: invalid_request, not_found, rate_limited, ...'),
    message: z.string().describe('A sentence for people.'),
  })
  .loose()
  .describe('The JSON error body; details vary with the code.');

export type ErrorBody = z.infer<typeof errorBody>;
