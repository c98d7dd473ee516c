// The secure-address sentence: for a server without an https address it says so and whom to ask;
// with one it links to the same place there; never a browser-settings hint.
import { describe, expect, it } from 'vitest';
import { secureAddressAdvice, type SecureFeature } from './secure-address.ts';

const FEATURES: SecureFeature[] = ['offline', 'notifications', 'alerts', 'pop-out', 'home-screen'];

describe('secureAddressAdvice', () => {
  it('says the server offers no secure address yet, and whom to ask, when it has none', () => {
    expect(secureAddressAdvice('offline', null)).toEqual({
      before:
        'Offline use needs the secure (https) address, which this server does not offer yet — ask whoever runs it.',
      link: null,
      after: '',
      text: 'Offline use needs the secure (https) address, which this server does not offer yet — ask whoever runs it.',
    });
    expect(secureAddressAdvice('notifications', null).text).toMatch(/^Notifications need the secure \(https\)/);
    expect(secureAddressAdvice('home-screen', null).text).toMatch(
      /^Adding the remote to your home screen needs the secure/,
    );
  });

  it('links to the same place at the https address when the server has one', () => {
    expect(secureAddressAdvice('offline', 'https://192.168.1.20:3443', '/focus')).toEqual({
      before: 'Open ',
      link: { href: 'https://192.168.1.20:3443/focus', text: 'https://192.168.1.20:3443/focus' },
      after: ' for offline use — your teacher installs the certificate once.',
      text: 'Open https://192.168.1.20:3443/focus for offline use — your teacher installs the certificate once.',
    });
    expect(secureAddressAdvice('home-screen', 'https://study.school.example/', '/companion/').text).toBe(
      'Open https://study.school.example/companion/ to add the remote to your home screen — your teacher installs the certificate once.',
    );
    expect(secureAddressAdvice('pop-out', 'https://study.school.example').link?.href).toBe(
      'https://study.school.example/',
    );
  });

  it('is one sentence for every feature, and never sends the student to browser settings', () => {
    for (const feature of FEATURES)
      for (const httpsUrl of [null, 'https://study.school.example']) {
        const { before, link, after, text } = secureAddressAdvice(feature, httpsUrl);
        expect(`${before}${link?.text ?? ''}${after}`).toBe(text);
        expect(text.match(/[.!?](\s|$)/g)).toHaveLength(1);
        expect(text).not.toMatch(/setting|allow|blocked/i);
      }
  });
});
