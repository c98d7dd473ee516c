// The phase-end sounds, made with Web Audio (no audio file to load): a few sine or triangle notes,
// each with a quick attack and an exponential fade. A browser lets a page make sound only after
// the student touched it, so the context is created (or resumed) on a gesture: Start, or Play in
// Settings; once running it keeps working while the tab is hidden.
export const ALARM_SOUNDS = ['chime', 'bell', 'digital'] as const;
export type AlarmSound = (typeof ALARM_SOUNDS)[number];

export const ALARM_SOUND_LABELS: Record<AlarmSound, string> = {
  chime: 'Chime (three rising notes)',
  bell: 'Bell (one soft strike)',
  digital: 'Digital (three short beeps)',
};

interface Note {
  /** Seconds after the sound starts. */
  at: number;
  frequency: number;
  /** Seconds until it has faded. */
  length: number;
  wave: OscillatorType;
  gain: number;
}

/** The notes of each sound: short, and quiet enough not to startle. */
export const SOUND_NOTES: Record<AlarmSound, Note[]> = {
  chime: [
    { at: 0, frequency: 659.25, length: 0.9, wave: 'sine', gain: 0.25 },
    { at: 0.22, frequency: 783.99, length: 0.9, wave: 'sine', gain: 0.25 },
    { at: 0.44, frequency: 1046.5, length: 1.4, wave: 'sine', gain: 0.25 },
  ],
  bell: [
    { at: 0, frequency: 523.25, length: 2.2, wave: 'sine', gain: 0.3 },
    { at: 0, frequency: 1318.5, length: 1.2, wave: 'sine', gain: 0.08 },
    { at: 0, frequency: 2093, length: 0.6, wave: 'sine', gain: 0.04 },
  ],
  digital: [
    { at: 0, frequency: 880, length: 0.15, wave: 'triangle', gain: 0.2 },
    { at: 0.25, frequency: 880, length: 0.15, wave: 'triangle', gain: 0.2 },
    { at: 0.5, frequency: 880, length: 0.15, wave: 'triangle', gain: 0.2 },
  ],
};

export function isAlarmSound(value: unknown): value is AlarmSound {
  return typeof value === 'string' && (ALARM_SOUNDS as readonly string[]).includes(value);
}

let context: AudioContext | undefined;

function audioContext(): AudioContext | undefined {
  if (context) return context;
  const Context =
    globalThis.AudioContext ?? (globalThis as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
  if (!Context) return undefined;
  context = new Context();
  return context;
}

/** Call from a gesture: lets a later chime play without one. */
export function primeChime(): void {
  void audioContext()
    ?.resume()
    .catch(() => undefined);
}

/** Plays one sound; resolves once it is scheduled (silently nothing where Web Audio is missing). */
export async function playChime(sound: AlarmSound): Promise<void> {
  const audio = audioContext();
  if (!audio) return;
  if (audio.state === 'suspended') await audio.resume().catch(() => undefined);
  const start = audio.currentTime + 0.02;
  for (const note of SOUND_NOTES[sound]) {
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.type = note.wave;
    oscillator.frequency.value = note.frequency;
    gain.gain.setValueAtTime(0.0001, start + note.at);
    gain.gain.exponentialRampToValueAtTime(note.gain, start + note.at + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + note.at + note.length);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start(start + note.at);
    oscillator.stop(start + note.at + note.length + 0.05);
  }
}
