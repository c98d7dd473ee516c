package app.studyhall.companion;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.provider.Settings;

/**
 * After boot, starts the timer overlay only when auto_start is on and the overlay permission was
 * already granted; otherwise it does nothing (it never asks for a permission from the background).
 * The same rule is companion/core/boot-rule.ts.
 */
public class BootReceiver extends BroadcastReceiver {

    @Override
    public void onReceive(Context context, Intent intent) {
        if (!Intent.ACTION_BOOT_COMPLETED.equals(intent.getAction())) return;
        if (!CompanionSettings.autoStart(context)) return;
        if (!Settings.canDrawOverlays(context)) return;
        OverlayService.start(context);
    }
}
