// The students' address as the page reads it: the server's app_url wins over the page's own
// origin, and a loopback origin (a teacher at http://127.0.0.1:3000) is never handed out while
// the server's answer is unknown.
import { describe, expect, it } from 'vitest';
import { isLoopbackUrl, studentsAddress } from './app-address.ts';

describe('studentsAddress', () => {
  it("is the server's app_url, whatever the page's origin", () => {
    for (const origin of ['http://127.0.0.1:3000', 'http://localhost:3000', 'http://192.168.1.20:3000']) {
      expect(studentsAddress({ app_url: 'https://192.168.1.20:3443' }, origin), origin).toBe(
        'https://192.168.1.20:3443',
      );
    }
    expect(studentsAddress({ app_url: 'https://study.school.example/hall/' }, 'http://127.0.0.1:3000')).toBe(
      'https://study.school.example/hall',
    );
  });

  it("is the page's own origin where the server says only this computer reaches it", () => {
    expect(studentsAddress({ app_url: null }, 'http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
    expect(studentsAddress({ app_url: null }, 'http://classroom.test:3000')).toBe('http://classroom.test:3000');
  });

  it("is the page's own origin, when the server's answer is unknown, only if that is not loopback", () => {
    expect(studentsAddress(null, 'http://192.168.1.20:3000')).toBe('http://192.168.1.20:3000');
    expect(studentsAddress({}, 'https://studyhall.local:3443')).toBe('https://studyhall.local:3443');
    for (const origin of [
      'http://127.0.0.1:3000',
      'http://127.1.2.3:3000',
      'http://localhost:3000',
      'http://[::1]:3000',
    ]) {
      expect(studentsAddress(null, origin), origin).toBeNull();
      expect(studentsAddress({}, origin), origin).toBeNull();
    }
  });

  it('ignores an app_url that is not an http(s) address', () => {
    for (const app_url of ['javascript:alert(1)', '', '//evil.example', 'ftp://192.168.1.20']) {
      expect(studentsAddress({ app_url }, 'http://127.0.0.1:3000'), app_url).toBeNull();
    }
  });
});

describe('isLoopbackUrl', () => {
  it('knows the names and addresses of this computer, and counts what is no URL as one', () => {
    for (const url of ['http://127.0.0.1:3000', 'http://localhost', 'http://[::1]:3000', 'not a url'])
      expect(isLoopbackUrl(url), url).toBe(true);
    for (const url of ['http://192.168.1.20:3000', 'https://studyhall.local:3443', 'http://[fd00::2]:3000'])
      expect(isLoopbackUrl(url), url).toBe(false);
  });
});
