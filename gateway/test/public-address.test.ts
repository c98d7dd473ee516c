// Which addresses the push worker may connect to: public ones only, in every spelling.
import { describe, expect, it } from 'vitest';
import { isPublicAddress, NonPublicEndpointError, resolvePublicAddress } from '../src/push/public-address.ts';

describe('isPublicAddress', () => {
  it('allows public IPv4 and global unicast IPv6', () => {
    for (const address of [
      '8.8.8.8',
      '93.184.216.34',
      '142.250.74.106',
      '2606:4700:4700::1111',
      '2a00:1450:4001::200e',
      '::ffff:8.8.8.8',
    ]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it('refuses loopback, private, link-local, unique-local, CGNAT, multicast, unspecified and special ranges', () => {
    const refused = [
      '127.0.0.1',
      '127.255.255.254',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '100.127.255.255',
      '0.0.0.0',
      '224.0.0.1',
      '239.255.255.250',
      '255.255.255.255',
      '240.0.0.1',
      '192.0.2.1',
      '198.18.0.1',
      '::',
      '::1',
      'fe80::1',
      'fe80::1%eth0',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '64:ff9b::7f00:1',
      '2002:7f00:1::1',
      '2001:db8::1',
      '2001::1',
      '::127.0.0.1',
      'localhost',
      'example.com',
      '',
    ];
    for (const address of refused) expect(isPublicAddress(address), address).toBe(false);
  });
});

describe('resolvePublicAddress', () => {
  it('returns the checked address, looked up once, and refuses a name with any non-public answer', async () => {
    let lookups = 0;
    const resolve = async (host: string) => {
      lookups++;
      return host === 'good.example.com'
        ? [{ address: '93.184.216.34', family: 4 }]
        : [
            { address: '93.184.216.34', family: 4 },
            { address: '10.0.0.1', family: 4 },
          ];
    };
    expect(await resolvePublicAddress('good.example.com', resolve)).toEqual({ address: '93.184.216.34', family: 4 });
    await expect(resolvePublicAddress('mixed.example.com', resolve)).rejects.toBeInstanceOf(NonPublicEndpointError);
    expect(lookups).toBe(2);
    await expect(resolvePublicAddress('[::1]', resolve)).rejects.toThrow(/endpoint_refused: ::1 is not a public/);
    expect(lookups).toBe(2);
  });
});
