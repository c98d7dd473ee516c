// The few line icons the remote uses, drawn inline as SVG (no icon font, no external file).
const common = {
  width: 24,
  height: 24,
  viewBox: '0 0 24 24',
  fill: 'none',
  stroke: 'currentColor',
  'stroke-width': 1.8,
  'stroke-linecap': 'round',
  'stroke-linejoin': 'round',
  'aria-hidden': 'true',
} as const;

export const GearIcon = () => (
  <svg {...common}>
    <circle cx="12" cy="12" r="3" />
    <path d="M19.4 15a1.7 1.7 0 0 0 .3 1.8l.1.1a2 2 0 1 1-2.8 2.8l-.1-.1a1.7 1.7 0 0 0-1.8-.3 1.7 1.7 0 0 0-1 1.5V21a2 2 0 1 1-4 0v-.1a1.7 1.7 0 0 0-1.1-1.5 1.7 1.7 0 0 0-1.8.3l-.1.1a2 2 0 1 1-2.8-2.8l.1-.1a1.7 1.7 0 0 0 .3-1.8 1.7 1.7 0 0 0-1.5-1H3a2 2 0 1 1 0-4h.1a1.7 1.7 0 0 0 1.5-1.1 1.7 1.7 0 0 0-.3-1.8l-.1-.1a2 2 0 1 1 2.8-2.8l.1.1a1.7 1.7 0 0 0 1.8.3H9a1.7 1.7 0 0 0 1-1.5V3a2 2 0 1 1 4 0v.1a1.7 1.7 0 0 0 1 1.5 1.7 1.7 0 0 0 1.8-.3l.1-.1a2 2 0 1 1 2.8 2.8l-.1.1a1.7 1.7 0 0 0-.3 1.8V9a1.7 1.7 0 0 0 1.5 1H21a2 2 0 1 1 0 4h-.1a1.7 1.7 0 0 0-1.5 1z" />
  </svg>
);

export const CheckIcon = () => (
  <svg {...common}>
    <path d="M5 12.5l4.5 4.5L19 7.5" />
  </svg>
);

export const CrossIcon = () => (
  <svg {...common}>
    <path d="M6.5 6.5l11 11M17.5 6.5l-11 11" />
  </svg>
);

export const SkipIcon = () => (
  <svg {...common}>
    <path d="M6 6l7 6-7 6z" />
    <path d="M17 6v12" />
  </svg>
);

export const UndoIcon = () => (
  <svg {...common}>
    <path d="M9 14L4 9l5-5" />
    <path d="M4 9h10.5a5.5 5.5 0 0 1 0 11H11" />
  </svg>
);

export const TargetIcon = () => (
  <svg {...common}>
    <circle cx="12" cy="12" r="8" />
    <circle cx="12" cy="12" r="4" />
    <circle cx="12" cy="12" r="0.6" fill="currentColor" />
  </svg>
);

export const CloudOffIcon = () => (
  <svg {...common} width={16} height={16}>
    <path d="M3 3l18 18" />
    <path d="M8.5 8.6A5 5 0 0 0 6.5 18H17a3.5 3.5 0 0 0 2.2-.8M12.2 6.1A5 5 0 0 1 17 10h.5a3.5 3.5 0 0 1 3.2 4.9" />
  </svg>
);

export const PlayIcon = () => (
  <svg {...common}>
    <path d="M8 5.5v13l10.5-6.5z" />
  </svg>
);

/** Finish: a square "stop", the end of the session. */
export const FinishIcon = () => (
  <svg {...common}>
    <rect x="6.5" y="6.5" width="11" height="11" rx="1.5" />
  </svg>
);

export const PauseIcon = () => (
  <svg {...common}>
    <path d="M9 5.5v13M15 5.5v13" />
  </svg>
);
