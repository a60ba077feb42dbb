/**
 * Every per-account limit, in one table: the four per-minute rate classes and the daily media
 * byte quota. Each entry says the limit's name (GET /me, the CLI's `--limit NAME=N`, the
 * `accounts` column), its field on the account, its default, how the console words it and what
 * the OpenAPI document adds to it. Adding a rate class is one entry here plus its column (a
 * migration and the entity's property); routes then name the class in their meta.
 */
export interface RateClassEntry {
  /** Its limit's name: GET /me, `--limit NAME=N`, the `accounts` column. */
  limit: string;
  /** The account's field holding it. */
  field: string;
  perMinute: number;
  /** "Your account has used all 30 changes allowed per minute". */
  words: string;
  defaultsExtra?: string;
  openapiNote?: string;
}

/** The daily media byte quota: not a minute window, but a limit like the others. */
const DAILY_MEDIA = { limit: 'daily_media_bytes', field: 'dailyMediaBytes', default: 209715200 } as const;

/**
 * The rate classes a route's meta names. `defaultsExtra` is said inside the OpenAPI text's
 * parentheses ("… by default"), `openapiNote` after them.
 */
export const RATE_CLASSES = {
  read: { limit: 'read_per_min', field: 'readPerMin', perMinute: 60, words: 'read requests' },
  write: {
    limit: 'write_per_min',
    field: 'writePerMin',
    perMinute: 30,
    words: 'changes',
    openapiNote: '; each rehosted image also counts against the media limits',
  },
  publish: {
    limit: 'publish_per_min',
    field: 'publishPerMin',
    perMinute: 1,
    words: 'publish requests',
  },
  media: {
    limit: 'media_per_min',
    field: 'mediaPerMin',
    perMinute: 10,
    words: 'media requests',
    defaultsExtra: ` and ${DAILY_MEDIA.default / (1024 * 1024)} MiB per UTC day`,
  },
} as const satisfies Record<string, RateClassEntry>;

export type RateClass = keyof typeof RATE_CLASSES;
export const RATE_CLASS_NAMES = Object.keys(RATE_CLASSES) as RateClass[];

type RateLimitName = (typeof RATE_CLASSES)[RateClass]['limit'];
export type LimitName = RateLimitName | typeof DAILY_MEDIA.limit;
/** The account's fields that hold its limits. */
export type LimitField = (typeof RATE_CLASSES)[RateClass]['field'] | typeof DAILY_MEDIA.field;

/** Every limit's name, in the contract's order (GET /me), with its account field and default. */
export const LIMITS: readonly { name: LimitName; field: LimitField; default: number }[] = [
  ...RATE_CLASS_NAMES.map((cls) => ({
    name: RATE_CLASSES[cls].limit,
    field: RATE_CLASSES[cls].field,
    default: RATE_CLASSES[cls].perMinute,
  })),
  { name: DAILY_MEDIA.limit, field: DAILY_MEDIA.field, default: DAILY_MEDIA.default },
];

export const DEFAULT_LIMITS = Object.fromEntries(LIMITS.map((l) => [l.name, l.default])) as Record<LimitName, number>;

/** The account's limit fields, each valued by `value` (a database row, defaults with overrides). */
export function limitFields(value: (limit: (typeof LIMITS)[number]) => number): Record<LimitField, number> {
  return Object.fromEntries(LIMITS.map((l) => [l.field, value(l)])) as Record<LimitField, number>;
}
