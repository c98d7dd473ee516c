// The phone remote: the timer face, the five action buttons, what happened to the last tap, and
// the settings and target sheets. In the Android app it also tells the shell when a session runs,
// so leaving the app shows the timer in picture-in-picture.
import { useSignalEffect } from '@preact/signals';
import { useRef, useState } from 'preact/hooks';
import { clampPipAspect } from '../../../core/pip-aspect.ts';
import type { Companion } from '../state/companion.ts';
import { ActionPad } from './ActionPad.tsx';
import { NoticeLine } from './NoticeLine.tsx';
import { PairingCard } from './PairingCard.tsx';
import { SettingsSheet } from './SettingsSheet.tsx';
import { StatusBar } from './StatusBar.tsx';
import { TargetSheet } from './TargetSheet.tsx';
import { TimerFace } from './TimerFace.tsx';

export function App({ companion }: { companion: Companion }) {
  const [sheet, setSheet] = useState<'settings' | 'target' | undefined>(undefined);
  const timeRef = useRef<HTMLDivElement>(null);

  useSignalEffect(() => {
    const active = companion.sessionRunning.value;
    const native = companion.platform.native;
    if (!native) return;
    const box = timeRef.current?.getBoundingClientRect();
    // The time with some room around it is what picture-in-picture shows.
    const aspect = clampPipAspect((box?.width ?? 16) + 48, (box?.height ?? 9) + 48);
    void native.setPictureInPicture({ active, ...aspect });
  });

  return (
    <div class="app">
      <StatusBar companion={companion} onSettings={() => setSheet('settings')} />
      <main class="main">
        {companion.needsPairing.value ? (
          <PairingCard companion={companion} />
        ) : (
          <TimerFace companion={companion} timeRef={timeRef} />
        )}
      </main>
      <NoticeLine companion={companion} />
      <ActionPad companion={companion} onTarget={() => setSheet('target')} />
      <SettingsSheet companion={companion} open={sheet === 'settings'} onClose={() => setSheet(undefined)} />
      <TargetSheet companion={companion} open={sheet === 'target'} onClose={() => setSheet(undefined)} />
    </div>
  );
}
