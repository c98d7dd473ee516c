// The pure parts of localbase storage's newer routes: list-v2's continuation token (storage-api's
// format), the shape that tells an upload from a JSON call on a fixed-word route, and the
// transformation text a signed render URL carries.
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './list-v2.ts';
import { requestShape } from './route-words.ts';
import { parseTransformationText, transformationText } from './transform.ts';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as FastifyRequest;

describe('list-v2 cursor', () => {
  it("round-trips storage-api's continuation token and reads one storage-api wrote", () => {
    const token = encodeCursor({ startAfter: 'a/b c.txt', descending: true });
    expect(decodeCursor(token)).toEqual({ startAfter: 'a/b c.txt', descending: true });
    expect(decodeCursor(Buffer.from('l:x/y\no:asc').toString('base64'))).toEqual({
      startAfter: 'x/y',
      descending: false,
    });
  });

  it('refuses a token with an unknown part', () => {
    expect(() => decodeCursor(Buffer.from('q:x').toString('base64'))).toThrow(/continuation token/);
    expect(() => decodeCursor(Buffer.from('no colon').toString('base64'))).toThrow(/continuation token/);
  });
});

describe('requestShape', () => {
  it('takes a multipart or non-JSON body for an upload, a JSON body without x-upsert for a call', () => {
    expect(requestShape(request({ 'content-type': 'multipart/form-data; boundary=x' }))).toBe('upload');
    expect(requestShape(request({ 'content-type': 'text/plain;charset=UTF-8' }))).toBe('upload');
    expect(requestShape(request({ 'content-type': 'application/json' }))).toBe('call');
    expect(requestShape(request({}))).toBe('call');
    expect(requestShape(request({ 'content-type': 'application/json', 'x-upsert': 'true' }))).toBe('either');
  });
});

describe('transformation text', () => {
  it("writes storage-api's canonical text, clamped, and reads it back", () => {
    const text = transformationText({ width: 5000, height: 0, resize: 'contain', quality: 50, format: 'origin' });
    expect(text).toBe('width:2000,resize:contain,quality:50');
    expect(parseTransformationText(text)).toEqual({ width: 2000, resize: 'contain', quality: 50 });
    expect(transformationText({ height: 10 })).toBe('height:10,resize:cover');
    expect(parseTransformationText('width:abc,evil:1')).toEqual({});
  });
});
