package app.studyhall.companion;

import android.app.PictureInPictureParams;
import android.os.Build;
import android.os.Bundle;
import android.util.Rational;
import androidx.annotation.RequiresApi;
import com.getcapacitor.BridgeActivity;

/**
 * The remote's web view. While a session runs (the web view says so), leaving the app shows the
 * timer in picture-in-picture with the aspect ratio the web view measured.
 */
public class MainActivity extends BridgeActivity {

    private boolean sessionRunning = false;
    private Rational pipAspect = new Rational(16, 9);

    @Override
    public void onCreate(Bundle savedInstanceState) {
        registerPlugin(CompanionOverlayPlugin.class);
        super.onCreate(savedInstanceState);
    }

    void setPictureInPicture(boolean active, Rational aspect) {
        sessionRunning = active;
        pipAspect = aspect;
        if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.S) {
            runOnUiThread(() -> setPictureInPictureParams(pipParams().setAutoEnterEnabled(active).build()));
        }
    }

    @Override
    protected void onUserLeaveHint() {
        super.onUserLeaveHint();
        // Android 12+ enters on its own (auto-enter); before that the app asks when the user leaves.
        if (sessionRunning && Build.VERSION.SDK_INT >= Build.VERSION_CODES.O && Build.VERSION.SDK_INT < Build.VERSION_CODES.S) {
            enterPictureInPictureMode(pipParams().build());
        }
    }

    @RequiresApi(Build.VERSION_CODES.O)
    private PictureInPictureParams.Builder pipParams() {
        return new PictureInPictureParams.Builder().setAspectRatio(pipAspect);
    }
}
