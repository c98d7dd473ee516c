package app.studyhall.companion;

import android.annotation.SuppressLint;
import android.app.Notification;
import android.app.NotificationChannel;
import android.app.NotificationManager;
import android.app.PendingIntent;
import android.app.Service;
import android.content.Context;
import android.content.Intent;
import android.content.pm.ServiceInfo;
import android.graphics.Color;
import android.graphics.PixelFormat;
import android.net.Uri;
import android.os.Build;
import android.os.Handler;
import android.os.IBinder;
import android.os.Looper;
import android.view.Gravity;
import android.view.WindowManager;
import android.webkit.JavascriptInterface;
import android.webkit.WebResourceRequest;
import android.webkit.WebResourceResponse;
import android.webkit.WebSettings;
import android.webkit.WebView;
import android.webkit.WebViewClient;
import androidx.core.app.NotificationCompat;
import androidx.core.app.ServiceCompat;
import androidx.core.content.ContextCompat;
import androidx.webkit.WebViewAssetLoader;

/**
 * The timer over other apps: a foreground service (type specialUse) that draws a small window with
 * TYPE_APPLICATION_OVERLAY. The window holds a web view with the remote's overlay page
 * (overlay.html of the same build), which does the polling and the drawing: while no session runs
 * it only watches and keeps the window invisible and untouchable; when a session starts it shows it.
 */
public class OverlayService extends Service {

    static final String ACTION_STOP = "app.studyhall.companion.STOP_OVERLAY";
    private static final String CHANNEL_ID = "timer_overlay";
    private static final int NOTIFICATION_ID = 1;
    private static final int WIDTH_DP = 208;
    private static final int HEIGHT_DP = 64;

    private final Handler mainThread = new Handler(Looper.getMainLooper());
    private WindowManager windowManager;
    private WindowManager.LayoutParams layout;
    private WebView webView;

    static void start(Context context) {
        ContextCompat.startForegroundService(context, new Intent(context, OverlayService.class));
    }

    @Override
    public void onCreate() {
        super.onCreate();
        ServiceCompat.startForeground(this, NOTIFICATION_ID, notification(), ServiceInfo.FOREGROUND_SERVICE_TYPE_SPECIAL_USE);
        showWindow();
    }

    @Override
    public int onStartCommand(Intent intent, int flags, int startId) {
        if (intent != null && ACTION_STOP.equals(intent.getAction())) stopSelf();
        return START_STICKY;
    }

    @Override
    public void onDestroy() {
        if (webView != null) {
            windowManager.removeView(webView);
            webView.destroy();
            webView = null;
        }
        super.onDestroy();
    }

    @Override
    public IBinder onBind(Intent intent) {
        return null;
    }

    @SuppressLint({"SetJavaScriptEnabled", "AddJavascriptInterface"})
    private void showWindow() {
        windowManager = (WindowManager) getSystemService(WINDOW_SERVICE);
        float density = getResources().getDisplayMetrics().density;
        layout = new WindowManager.LayoutParams(
            Math.round(WIDTH_DP * density),
            Math.round(HEIGHT_DP * density),
            WindowManager.LayoutParams.TYPE_APPLICATION_OVERLAY,
            WindowManager.LayoutParams.FLAG_NOT_FOCUSABLE,
            PixelFormat.TRANSLUCENT
        );
        layout.gravity = Gravity.TOP | Gravity.END;
        layout.x = Math.round(12 * density);
        layout.y = Math.round(96 * density);
        applyVisibility(false);

        // The build is in the APK's assets/public; the loader serves it on an https origin.
        WebViewAssetLoader assets = new WebViewAssetLoader.Builder()
            .addPathHandler("/assets/", new WebViewAssetLoader.AssetsPathHandler(this))
            .build();
        webView = new WebView(this);
        webView.setBackgroundColor(Color.TRANSPARENT);
        WebSettings settings = webView.getSettings();
        settings.setJavaScriptEnabled(true);
        settings.setDomStorageEnabled(true);
        // The page is https (the asset loader); the studyhall server on the LAN is plain http.
        settings.setMixedContentMode(WebSettings.MIXED_CONTENT_ALWAYS_ALLOW);
        webView.setWebViewClient(new WebViewClient() {
            @Override
            public WebResourceResponse shouldInterceptRequest(WebView view, WebResourceRequest request) {
                return assets.shouldInterceptRequest(request.getUrl());
            }
        });
        webView.addJavascriptInterface(new Bridge(), "StudyhallOverlay");
        windowManager.addView(webView, layout);
        String page = "https://appassets.androidplatform.net/assets/public/overlay.html"
            + "?server=" + Uri.encode(CompanionSettings.serverUrl(this))
            + "&code=" + Uri.encode(CompanionSettings.pairingCode(this));
        webView.loadUrl(page);
    }

    /** Hidden means fully transparent and untouchable, so taps reach the app below; the page keeps running. */
    private void applyVisibility(boolean visible) {
        layout.alpha = visible ? 1f : 0f;
        if (visible) layout.flags &= ~WindowManager.LayoutParams.FLAG_NOT_TOUCHABLE;
        else layout.flags |= WindowManager.LayoutParams.FLAG_NOT_TOUCHABLE;
        if (webView != null) windowManager.updateViewLayout(webView, layout);
    }

    private Notification notification() {
        NotificationManager manager = getSystemService(NotificationManager.class);
        if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.O) {
            NotificationChannel channel = new NotificationChannel(CHANNEL_ID, getString(R.string.overlay_channel_name), NotificationManager.IMPORTANCE_LOW);
            manager.createNotificationChannel(channel);
        }
        PendingIntent stop = PendingIntent.getService(
            this, 0, new Intent(this, OverlayService.class).setAction(ACTION_STOP), PendingIntent.FLAG_IMMUTABLE
        );
        PendingIntent open = PendingIntent.getActivity(
            this, 0, new Intent(this, MainActivity.class), PendingIntent.FLAG_IMMUTABLE
        );
        return new NotificationCompat.Builder(this, CHANNEL_ID)
            .setSmallIcon(R.drawable.ic_stat_timer)
            .setContentTitle(getString(R.string.overlay_notification_title))
            .setContentText(getString(R.string.overlay_notification_text))
            .setContentIntent(open)
            .addAction(0, getString(R.string.overlay_notification_stop), stop)
            .setOngoing(true)
            .setPriority(NotificationCompat.PRIORITY_LOW)
            .build();
    }

    /** Called by overlay.html (JavaScript runs on a binder thread: window changes go to the main thread). */
    private final class Bridge {

        @JavascriptInterface
        public void setVisible(boolean visible) {
            mainThread.post(() -> applyVisibility(visible));
        }

        @JavascriptInterface
        public void openApp() {
            Intent intent = new Intent(OverlayService.this, MainActivity.class).addFlags(Intent.FLAG_ACTIVITY_NEW_TASK);
            mainThread.post(() -> startActivity(intent));
        }

        @JavascriptInterface
        public void close() {
            mainThread.post(OverlayService.this::stopSelf);
        }
    }
}
