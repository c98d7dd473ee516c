package app.studyhall.companion;

import android.content.Context;
import android.content.SharedPreferences;

/**
 * The remote's settings as the web view stores them: Capacitor Preferences with the group
 * "pipapk_settings" writes a SharedPreferences file of that name, holding strings.
 */
final class CompanionSettings {

    static final String GROUP = "pipapk_settings";
    static final String DEFAULT_SERVER_URL = "http://127.0.0.1:3000";

    private CompanionSettings() {}

    private static SharedPreferences preferences(Context context) {
        return context.getSharedPreferences(GROUP, Context.MODE_PRIVATE);
    }

    static String serverUrl(Context context) {
        String stored = preferences(context).getString("server_url", null);
        return stored == null || stored.isEmpty() ? DEFAULT_SERVER_URL : stored;
    }

    /** On unless stored as "false": auto start defaults to on. */
    static boolean autoStart(Context context) {
        return !"false".equals(preferences(context).getString("auto_start", null));
    }

    static String pairingCode(Context context) {
        String stored = preferences(context).getString("pairing_code", null);
        return stored == null ? "" : stored;
    }
}
