// The app's places: one entry per route, in rail order. The focus screen (the product, and the
// start page) ships with the shell so it renders without a second round trip; every other screen
// is its own lazy chunk. A future screen (community,
// buddies, groups, invites, privacy) is one more entry here: the rail, the phone bar, the router
// and the "More" menu all follow this list.
import type { ComponentType, JSX } from 'preact';
import { BackupIcon, FocusIcon, ProfileIcon, SettingsIcon, StatsIcon } from './components/icons.tsx';
import FocusPage from './routes/focus/FocusPage.tsx';

export interface Place {
  path: string;
  /** Extra patterns the same screen answers (preact-iso syntax, e.g. /groups/:id). */
  aliases?: string[];
  label: string;
  icon: (props: { size?: number }) => JSX.Element;
  /** One of the four in the phone's bottom bar (the rest are under More). */
  phoneBar: boolean;
  /** Shown in the rail and menus; false for screens reached only by link (an invite). */
  inNav: boolean;
  /** A lazy screen's module, or `component` for the one that ships with the shell. */
  load?: () => Promise<{ default: ComponentType }>;
  component?: ComponentType;
}

export const places: Place[] = [
  { path: '/focus', label: 'Focus', icon: FocusIcon, phoneBar: true, inNav: true, component: FocusPage },
  { path: '/stats', label: 'Stats', icon: StatsIcon, phoneBar: true, inNav: true, load: () => import('./routes/stats/StatsPage.tsx') },
  { path: '/backups', label: 'Backups', icon: BackupIcon, phoneBar: true, inNav: true, load: () => import('./routes/backups/BackupsPage.tsx') },
  { path: '/profile', label: 'Profile', icon: ProfileIcon, phoneBar: false, inNav: true, load: () => import('./routes/profile/ProfilePage.tsx') },
  { path: '/settings', label: 'Settings', icon: SettingsIcon, phoneBar: false, inNav: true, load: () => import('./routes/settings/SettingsPage.tsx') },
];
