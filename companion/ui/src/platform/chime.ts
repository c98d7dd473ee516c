// The phone's phase-end sound: three rising notes made with Web Audio (no file to load), like the
// web app's default chime. A phone lets a page make sound only after a touch, so the first tap on
// the remote primes the context; until then the vibration alone announces the end.
let context: AudioContext | undefined;

const NOTES = [
  { at: 0, frequency: 659.25, length: 0.9 },
  { at: 0.22, frequency: 783.99, length: 0.9 },
  { at: 0.44, frequency: 1046.5, length: 1.4 },
];

function audioContext(): AudioContext | undefined {
  if (!context && typeof AudioContext !== 'undefined') context = new AudioContext();
  return context;
}

/** From a touch: lets later chimes play. */
export function primeChime(): void {
  void audioContext()
    ?.resume()
    .catch(() => undefined);
}

export function playChime(): void {
  const audio = audioContext();
  if (!audio || audio.state !== 'running') return;
  const start = audio.currentTime + 0.02;
  for (const note of NOTES) {
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.frequency.value = note.frequency;
    gain.gain.setValueAtTime(0.0001, start + note.at);
    gain.gain.exponentialRampToValueAtTime(0.25, start + note.at + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + note.at + note.length);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start(start + note.at);
    oscillator.stop(start + note.at + note.length + 0.05);
  }
}
