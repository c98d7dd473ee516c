package app.studyhall.companion;

import com.getcapacitor.BridgeActivity;

public class MainActivity extends BridgeActivity {}
