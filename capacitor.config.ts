// Capacitor configuration of the phone companion's Android shell (companion/android). It sits at the
// repository root because Capacitor finds its plugins in this package.json; the web part is the
// built remote (companion/ui/dist). CapacitorHttp routes fetch through the native HTTP stack, so the
// remote can poll a plain-HTTP studyhall server on the LAN from the app's https web view.
import type { CapacitorConfig } from '@capacitor/cli';

const config: CapacitorConfig = {
  appId: 'app.studyhall.companion',
  appName: 'studyhall remote',
  webDir: 'companion/ui/dist',
  android: {
    path: 'companion/android',
    // Cleartext to any host: the server on a LAN is plain HTTP (the manifest says the same).
    allowMixedContent: true,
  },
  server: {
    androidScheme: 'https',
    cleartext: true,
  },
  plugins: {
    CapacitorHttp: { enabled: true },
  },
};

export default config;
