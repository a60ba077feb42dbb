/**
 * `popularity` (docs/api.md "Reader counters"): a gravity-decayed score, as the well-known
 * news rankings do it, so a fresh article with a few reactions outranks an old one with many:
 *
 *     points     = likes + 2 × saves + 3 × comments + reads
 *     age        = hours since published_at (created_at while never published), at least 0
 *     popularity = min(2147483647, floor(10000 × points / (age + 2) ^ 1.5))
 *
 * It is recomputed in the same statement that changes one of its inputs (a flush of reader
 * counts, an operator batch), from the new values and the age at that moment; between two
 * changes it is not decayed again. Its one home is this SQL expression, used by both writers.
 */
export interface PopularityInputs {
  likes: string;
  comments: string;
  saves: string;
  reads: string;
  /** A timestamptz expression: when the article's age starts. */
  since: string;
}

export function popularitySql(c: PopularityInputs): string {
  const points = `((${c.likes})::float8 + 2 * (${c.saves})::float8 + 3 * (${c.comments})::float8 + (${c.reads})::float8)`;
  const hours = `greatest(0, extract(epoch FROM clock_timestamp() - (${c.since}))::float8 / 3600)`;
  return `least(2147483647, floor(10000 * ${points} / power(${hours} + 2, 1.5)))::int`;
}
