// A shape made strict all the way down: every object refuses keys it does not name, in arrays,
// nullables, optionals and unions too. The app parses answers leniently (a newer database may add
// a key); the contract tests parse them strictly, so an answer that grew or lost a key fails there.
import { z } from 'zod';

export function strictly(shape: z.ZodType): z.ZodType {
  if (shape instanceof z.ZodObject) {
    const fields = Object.entries(shape.shape as Record<string, z.ZodType>);
    return z.strictObject(Object.fromEntries(fields.map(([key, field]) => [key, strictly(field)])));
  }
  if (shape instanceof z.ZodArray) return z.array(strictly(shape.element as z.ZodType));
  if (shape instanceof z.ZodNullable) return strictly(shape.unwrap() as z.ZodType).nullable();
  if (shape instanceof z.ZodOptional) return strictly(shape.unwrap() as z.ZodType).optional();
  if (shape instanceof z.ZodUnion) {
    const options = (shape.options as z.ZodType[]).map(strictly);
    return z.union(options as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  }
  return shape;
}

/** Where and why `value` is not exactly `shape`, one `path: problem` per issue; none when it is. */
export function mismatches(shape: z.ZodType, value: unknown): string[] {
  const parsed = strictly(shape).safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => `${issue.path.join('.') || '(the answer)'}: ${issue.message}`);
}
