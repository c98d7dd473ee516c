// What the welcome screen says once after this device's account was deleted: the deletion signs
// the device out, and the student lands on the welcome screen at `/` with this said first.
import { signal } from '@preact/signals';

export const accountFarewell = signal<{ email: string | null } | null>(null);
