// An avatar sent as a data URL: decoded, checked (an image type we serve, at most 2 MB, bytes that
// really are that type) before it is stored. Anything else is refused with a reason.
import { GatewayError } from '../http-errors.ts';

export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;

const signatures: Record<string, { extension: string; matches: (bytes: Buffer) => boolean }> = {
  'image/png': {
    extension: 'png',
    matches: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  'image/jpeg': { extension: 'jpg', matches: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  'image/gif': { extension: 'gif', matches: (b) => b.subarray(0, 4).toString('latin1') === 'GIF8' },
  'image/webp': {
    extension: 'webp',
    matches: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
};

export interface DecodedAvatar {
  contentType: string;
  extension: string;
  bytes: Buffer;
}

export function isDataUrl(value: string): boolean {
  return value.startsWith('data:');
}

export function decodeAvatarDataUrl(dataUrl: string): DecodedAvatar {
  const match = /^data:([a-z]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]*)$/i.exec(dataUrl);
  if (!match?.[1] || match[2] === undefined)
    throw new GatewayError(400, 'invalid_avatar', 'The avatar must be a base64 data URL.');
  const contentType = match[1].toLowerCase();
  const signature = signatures[contentType];
  if (!signature)
    throw new GatewayError(415, 'unsupported_avatar_type', 'The avatar must be a PNG, JPEG, GIF or WebP image.');
  const bytes = Buffer.from(match[2], 'base64');
  if (bytes.length === 0) throw new GatewayError(400, 'invalid_avatar', 'The avatar is empty.');
  if (bytes.length > AVATAR_MAX_BYTES)
    throw new GatewayError(413, 'avatar_too_large', 'The avatar must be at most 2 MB.');
  if (!signature.matches(bytes))
    throw new GatewayError(400, 'invalid_avatar', `The avatar bytes are not a ${contentType} image.`);
  return { contentType, extension: signature.extension, bytes };
}
