// The app's places: one entry per route, in rail order. The focus screen (the product, and the
// start page) ships with the shell so it renders without a second round trip; every other screen
// is its own lazy chunk (the community's with supabase-js and zod). The rail, the phone bar, the
// router and the "More" menu all follow this list.
import type { ComponentType, JSX } from 'preact';
import {
  BackupIcon,
  BuddiesIcon,
  CommunityIcon,
  FocusIcon,
  ProfileIcon,
  SettingsIcon,
  StatsIcon,
} from './components/icons.tsx';
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
  /** Other path prefixes under which this place is marked current (a group under Community). */
  marks?: string[];
  /** A lazy screen's module, or `component` for the one that ships with the shell. */
  load?: () => Promise<{ default: ComponentType }>;
  component?: ComponentType;
}

export const places: Place[] = [
  { path: '/focus', label: 'Focus', icon: FocusIcon, phoneBar: true, inNav: true, component: FocusPage },
  {
    path: '/stats',
    label: 'Stats',
    icon: StatsIcon,
    phoneBar: true,
    inNav: true,
    load: () => import('./routes/stats/StatsPage.tsx'),
  },
  {
    path: '/community',
    label: 'Community',
    icon: CommunityIcon,
    phoneBar: true,
    inNav: true,
    marks: ['/groups', '/invite'],
    load: () => import('./routes/community/CommunityPage.tsx'),
  },
  {
    path: '/buddies',
    label: 'Buddies',
    icon: BuddiesIcon,
    phoneBar: false,
    inNav: true,
    load: () => import('./routes/buddies/BuddiesPage.tsx'),
  },
  {
    path: '/backups',
    label: 'Backups',
    icon: BackupIcon,
    phoneBar: false,
    inNav: true,
    load: () => import('./routes/backups/BackupsPage.tsx'),
  },
  {
    path: '/profile',
    label: 'Profile',
    icon: ProfileIcon,
    phoneBar: false,
    inNav: true,
    load: () => import('./routes/profile/ProfilePage.tsx'),
  },
  {
    path: '/settings',
    label: 'Settings',
    icon: SettingsIcon,
    phoneBar: false,
    inNav: true,
    load: () => import('./routes/settings/SettingsPage.tsx'),
  },
  {
    path: '/groups/:id',
    label: 'Group',
    icon: CommunityIcon,
    phoneBar: false,
    inNav: false,
    load: () => import('./routes/groups/GroupPage.tsx'),
  },
  {
    path: '/invite/:token',
    label: 'Invite',
    icon: CommunityIcon,
    phoneBar: false,
    inNav: false,
    load: () => import('./routes/invite/InvitePage.tsx'),
  },
  {
    path: '/settings/privacy',
    label: 'Privacy',
    icon: SettingsIcon,
    phoneBar: false,
    inNav: false,
    load: () => import('./routes/privacy/PrivacyPage.tsx'),
  },
];
