// The Android shell as declared: AndroidManifest.xml parsed as XML, and the Gradle SDK values.
// Exactly the thirteen permissions (WRITE_EXTERNAL_STORAGE up to SDK 28), minSdk 24 / targetSdk 35,
// cleartext HTTP for every host, HTTPS trusting the user's CA certificates (the server's local CA), the overlay as a special-use foreground service, the boot receiver,
// CapacitorHttp on, debug builds only. The APK itself cannot be built here (no Android SDK).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Window } from 'happy-dom';
import { afterAll, describe, expect, it } from 'vitest';
import capacitorConfig from '../capacitor.config.ts';

const androidDir = path.join(import.meta.dirname, 'android');
const mainDir = path.join(androidDir, 'app', 'src', 'main');
const javaDir = path.join(mainDir, 'java', 'app', 'studyhall', 'companion');
const read = (...parts: string[]) => readFileSync(path.join(...parts), 'utf8');

const window = new Window();
afterAll(() => window.happyDOM.close());

function parseXml(text: string) {
  const document = new window.DOMParser().parseFromString(text, 'application/xml');
  expect(document.querySelector('parsererror')).toBeNull();
  return document;
}

const manifest = parseXml(read(mainDir, 'AndroidManifest.xml'));
const elements = (name: string) => [...manifest.getElementsByTagName(name)];
const attribute = (element: { getAttribute(name: string): string | null }, name: string) =>
  element.getAttribute(`android:${name}`);

describe('permissions', () => {
  // The permissions the APK asks for: declared ones, less those a tools:node="remove" takes out of the merge.
  const requested = elements('uses-permission').filter((element) => element.getAttribute('tools:node') !== 'remove');

  it('are exactly the thirteen, each once', () => {
    expect(requested.map((element) => attribute(element, 'name')).sort()).toEqual(
      [
        'android.permission.INTERNET',
        'android.permission.SYSTEM_ALERT_WINDOW',
        'android.permission.FOREGROUND_SERVICE',
        'android.permission.FOREGROUND_SERVICE_SPECIAL_USE',
        'android.permission.POST_NOTIFICATIONS',
        'android.permission.RECEIVE_BOOT_COMPLETED',
        'android.permission.WAKE_LOCK',
        'android.permission.VIBRATE',
        'android.permission.SCHEDULE_EXACT_ALARM',
        'android.permission.USE_BIOMETRIC',
        'android.permission.USE_FINGERPRINT',
        'android.permission.READ_EXTERNAL_STORAGE',
        'android.permission.WRITE_EXTERNAL_STORAGE',
      ].sort(),
    );
    expect(requested).toHaveLength(13);
    expect(elements('uses-permission-sdk-23')).toHaveLength(0);
  });

  it('limits only WRITE_EXTERNAL_STORAGE, to max SDK 28', () => {
    const limited = requested.filter((element) => attribute(element, 'maxSdkVersion') !== null);
    expect(limited.map((element) => [attribute(element, 'name'), attribute(element, 'maxSdkVersion')])).toEqual([
      ['android.permission.WRITE_EXTERNAL_STORAGE', '28'],
    ]);
  });

  it("removes only androidx.core's dynamic-receiver permission from the merged manifest", () => {
    const removed = elements('uses-permission').filter((element) => element.getAttribute('tools:node') === 'remove');
    expect(removed.map((element) => attribute(element, 'name'))).toEqual([
      '${applicationId}.DYNAMIC_RECEIVER_NOT_EXPORTED_PERMISSION',
    ]);
  });
});

describe('SDK levels', () => {
  it('are minSdk 24 and targetSdk 35 (compileSdk 35), and the app module reads them', () => {
    const variables = read(androidDir, 'variables.gradle');
    expect(variables).toMatch(/^\s*minSdkVersion = 24$/m);
    expect(variables).toMatch(/^\s*targetSdkVersion = 35$/m);
    expect(variables).toMatch(/^\s*compileSdkVersion = 35$/m);
    const app = read(androidDir, 'app', 'build.gradle');
    expect(app).toMatch(/minSdkVersion rootProject\.ext\.minSdkVersion/);
    expect(app).toMatch(/targetSdkVersion rootProject\.ext\.targetSdkVersion/);
    expect(app).not.toMatch(/minSdk(Version)? \d/);
  });
});

describe('cleartext HTTP', () => {
  const application = elements('application')[0];

  it('is permitted for all hosts by the manifest and the network security config', () => {
    expect(application && attribute(application, 'usesCleartextTraffic')).toBe('true');
    expect(application && attribute(application, 'networkSecurityConfig')).toBe('@xml/network_security_config');
    const config = parseXml(read(mainDir, 'res', 'xml', 'network_security_config.xml'));
    const base = config.getElementsByTagName('base-config')[0];
    expect(base?.getAttribute('cleartextTrafficPermitted')).toBe('true');
    // No domain rule narrows it again.
    expect(config.getElementsByTagName('domain-config')).toHaveLength(0);
  });

  it('is reached from the web view through CapacitorHttp', () => {
    expect(capacitorConfig.plugins?.CapacitorHttp).toEqual({ enabled: true });
    expect(capacitorConfig.server?.cleartext).toBe(true);
    expect(capacitorConfig.webDir).toBe('companion/ui/dist');
    expect(capacitorConfig.android?.path).toBe('companion/android');
  });
});

describe('HTTPS to a studyhall server on the LAN', () => {
  const config = parseXml(read(mainDir, 'res', 'xml', 'network_security_config.xml'));

  it("trusts the CAs the student installed (the server's local CA from /__ca) besides the system's", () => {
    const base = config.getElementsByTagName('base-config')[0];
    const anchors = [...(base?.getElementsByTagName('trust-anchors')[0]?.getElementsByTagName('certificates') ?? [])];
    expect(anchors.map((anchor) => anchor.getAttribute('src')).sort()).toEqual(['system', 'user']);
    // Android 7+ trusts user CAs in an app only where its config says so; no debug-only override instead.
    expect(config.getElementsByTagName('debug-overrides')).toHaveLength(0);
    // Certificates are checked as usual: nothing pins or overrides them.
    expect(config.getElementsByTagName('pin-set')).toHaveLength(0);
    expect(anchors.every((anchor) => anchor.getAttribute('overridePins') === null)).toBe(true);
  });
});

describe('the overlay service', () => {
  const services = elements('service');

  it('is a special-use foreground service, not exported, with its subtype explained', () => {
    expect(services).toHaveLength(1);
    const service = services[0];
    if (!service) return;
    expect(attribute(service, 'name')).toBe('.OverlayService');
    expect(attribute(service, 'foregroundServiceType')).toBe('specialUse');
    expect(attribute(service, 'exported')).toBe('false');
    const property = service.getElementsByTagName('property')[0];
    expect(property && attribute(property, 'name')).toBe('android.app.PROPERTY_SPECIAL_USE_FGS_SUBTYPE');
    expect((property && attribute(property, 'value'))?.length).toBeGreaterThan(20);
  });

  it('draws with TYPE_APPLICATION_OVERLAY and starts in the foreground as special use', () => {
    const source = read(javaDir, 'OverlayService.java');
    expect(source).toContain('WindowManager.LayoutParams.TYPE_APPLICATION_OVERLAY');
    expect(source).toContain('ServiceInfo.FOREGROUND_SERVICE_TYPE_SPECIAL_USE');
    expect(source).toContain('overlay.html');
  });
});

describe('the boot receiver', () => {
  it('listens for BOOT_COMPLETED and is not exported', () => {
    const receivers = elements('receiver');
    expect(receivers).toHaveLength(1);
    const receiver = receivers[0];
    if (!receiver) return;
    expect(attribute(receiver, 'name')).toBe('.BootReceiver');
    expect(attribute(receiver, 'exported')).toBe('false');
    const actions = [...receiver.getElementsByTagName('action')].map((action) => attribute(action, 'name'));
    expect(actions).toEqual(['android.intent.action.BOOT_COMPLETED']);
  });

  it('starts the overlay only after checking auto_start and the overlay permission', () => {
    const source = read(javaDir, 'BootReceiver.java');
    const autoStart = source.indexOf('if (!CompanionSettings.autoStart(context)) return;');
    const permission = source.indexOf('if (!Settings.canDrawOverlays(context)) return;');
    const start = source.indexOf('OverlayService.start(context);');
    expect(autoStart).toBeGreaterThan(-1);
    expect(permission).toBeGreaterThan(-1);
    expect(start).toBeGreaterThan(Math.max(autoStart, permission));
    // The settings it reads are the web view's: Capacitor Preferences group pipapk_settings.
    const settings = read(javaDir, 'CompanionSettings.java');
    expect(settings).toContain('GROUP = "pipapk_settings"');
    expect(settings).toContain('"auto_start"');
    expect(settings).toContain('!"false".equals(');
  });
});

describe('the build', () => {
  it('has debug builds only: no release build type and no signing config of its own', () => {
    const app = read(androidDir, 'app', 'build.gradle');
    expect(app).not.toMatch(/\brelease\s*\{/);
    expect(app).not.toMatch(/signingConfigs?/);
  });

  it('keeps build outputs and copied web assets out of the repository', () => {
    const ignored = read(androidDir, '.gitignore');
    for (const line of [
      'build/',
      'app/src/main/assets/public',
      'capacitor-cordova-android-plugins',
      'local.properties',
    ]) {
      expect(ignored.split('\n')).toContain(line);
    }
  });
});
