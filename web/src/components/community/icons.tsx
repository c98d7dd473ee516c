// Icons only the community screens use (kept out of the shell's icon file, so the focus screen's
// first load does not carry them). Same 24 px stroke set, drawn in currentColor. A drawing the shell
// already has (the bin, the group of people) is imported from ../icons.tsx, never drawn here again.
import { Icon, type IconProps } from '../icons.tsx';

export const LockIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="5" y="11" width="14" height="10" rx="2" />
    <path d="M8 11V8a4 4 0 0 1 8 0v3" />
  </Icon>
);
export const BellIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M6 16V11a6 6 0 0 1 12 0v5l1.5 2h-15z" />
    <path d="M10 21h4" />
  </Icon>
);
export const BellOffIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M8.5 5.3A6 6 0 0 1 18 11v3.5" />
    <path d="M6 11v5l-1.5 2H17" />
    <path d="M10 21h4" />
    <path d="M3 3l18 18" />
  </Icon>
);
export const FlagIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M5 21V4" />
    <path d="M5 4h11l-2 4 2 4H5" />
  </Icon>
);
export const CopyIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="9" y="9" width="11" height="11" rx="2" />
    <path d="M5 15V6a2 2 0 0 1 2-2h9" />
  </Icon>
);
export const SendIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M4 12 20 4l-6 16-3-7z" />
    <path d="m11 13 9-9" />
  </Icon>
);
export const SearchIcon = (props: IconProps) => (
  <Icon {...props}>
    <circle cx="11" cy="11" r="6.5" />
    <path d="m20 20-4.2-4.2" />
  </Icon>
);
export const LinkIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1" />
    <path d="M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1" />
  </Icon>
);
export const UserPlusIcon = (props: IconProps) => (
  <Icon {...props}>
    <circle cx="10" cy="8" r="4" />
    <path d="M3 21a7 7 0 0 1 12.5-4.3" />
    <path d="M19 14v6" />
    <path d="M16 17h6" />
  </Icon>
);
export const DoorIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M14 4h5v16h-5" />
    <path d="M10 16l4-4-4-4" />
    <path d="M14 12H3" />
  </Icon>
);
export const ShieldIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M12 3 5 6v6c0 4.5 3 7.5 7 9 4-1.5 7-4.5 7-9V6z" />
  </Icon>
);
export const TrophyIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M8 21h8" />
    <path d="M12 17v4" />
    <path d="M7 4h10v5a5 5 0 0 1-10 0z" />
    <path d="M7 6H4a3 3 0 0 0 3 5" />
    <path d="M17 6h3a3 3 0 0 1-3 5" />
  </Icon>
);
