package app.studyhall.companion;

import android.content.Intent;
import android.net.Uri;
import android.provider.Settings;
import com.getcapacitor.JSObject;
import com.getcapacitor.Plugin;
import com.getcapacitor.PluginCall;
import com.getcapacitor.PluginMethod;
import com.getcapacitor.annotation.CapacitorPlugin;

/** What the web view asks of the Android shell: the overlay permission, the overlay, picture-in-picture. */
@CapacitorPlugin(name = "CompanionOverlay")
public class CompanionOverlayPlugin extends Plugin {

    @PluginMethod
    public void overlayPermissionGranted(PluginCall call) {
        JSObject answer = new JSObject();
        answer.put("granted", Settings.canDrawOverlays(getContext()));
        call.resolve(answer);
    }

    @PluginMethod
    public void openOverlayPermissionSettings(PluginCall call) {
        Intent intent = new Intent(Settings.ACTION_MANAGE_OVERLAY_PERMISSION, Uri.parse("package:" + getContext().getPackageName()));
        intent.addFlags(Intent.FLAG_ACTIVITY_NEW_TASK);
        getContext().startActivity(intent);
        call.resolve();
    }

    @PluginMethod
    public void startOverlay(PluginCall call) {
        if (!Settings.canDrawOverlays(getContext())) {
            call.reject("Drawing over other apps is not allowed yet.", "overlay_permission_missing");
            return;
        }
        OverlayService.start(getContext());
        call.resolve();
    }

    @PluginMethod
    public void setPictureInPicture(PluginCall call) {
        boolean active = Boolean.TRUE.equals(call.getBoolean("active", false));
        int numerator = call.getInt("numerator", 16);
        int denominator = call.getInt("denominator", 9);
        MainActivity activity = (MainActivity) getActivity();
        if (activity != null) activity.setPictureInPicture(active, PipAspect.clamp(numerator, denominator));
        call.resolve();
    }
}
