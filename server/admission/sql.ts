/**
 * SQL for admitted reads, written once and rendered twice: for a request alone (scalar
 * parameters) and for a batch of requests (one array per parameter, each request reading its
 * own element). A read is a template of text, named parameters and the admitted account
 * (`sql\`… WHERE id = ${p.id} AND account_id = ${ADMITTED_ACCOUNT}\``), so nothing numbers a
 * parameter by hand and nothing rewrites `$n` in finished text: the statement builder
 * (admitted-statement.ts) numbers each parameter where it renders it.
 */

/** A named parameter of a read, with its SQL type: `p.id` in a read's template. */
export interface Param {
  readonly kind: 'param';
  readonly name: string;
  readonly type: string;
}

/** Stands for the account the statement admitted: every admitted read must scope itself with it. */
export const ADMITTED_ACCOUNT = { kind: 'account' } as const;
type AdmittedAccount = typeof ADMITTED_ACCOUNT;

type Part = string | Param | AdmittedAccount | Sql;

/** A piece of SQL: text, parameters, the admitted account and other pieces, in order. */
export class Sql {
  constructor(readonly parts: readonly Part[]) {}

  /** Renders the pieces with `param` and `account` saying what a parameter and the account become. */
  render(to: { param(p: Param): string; account: string }): string {
    return this.parts
      .map((part) => {
        if (typeof part === 'string') return part;
        if (part instanceof Sql) return part.render(to);
        return part.kind === 'account' ? to.account : to.param(part);
      })
      .join('');
  }

  /** Its text, for a piece of plain SQL (no parameter, no admitted account) used in a plain statement. */
  get plain(): string {
    return this.render({
      param: (p) => {
        throw new Error(`${p.name}: a plain statement has no named parameters`);
      },
      get account(): string {
        throw new Error('a plain statement has no admitted account');
      },
    });
  }

  /** A piece put into a plain template string by mistake would print "[object Object]": refuse it. */
  toString(): string {
    throw new Error('an Sql piece goes into an sql`…` template, or through .plain into a plain statement');
  }

  /** The named parameters it uses. */
  get params(): Set<Param> {
    const used = new Set<Param>();
    for (const part of this.parts) {
      if (part instanceof Sql) for (const p of part.params) used.add(p);
      else if (typeof part !== 'string' && part.kind === 'param') used.add(part);
    }
    return used;
  }

  /** Whether the admitted account appears anywhere in it. */
  get scopedToAccount(): boolean {
    return this.parts.some((p) => p === ADMITTED_ACCOUNT || (p instanceof Sql && p.scopedToAccount));
  }
}

/**
 * The template tag: `${…}` may be a `Param`, `ADMITTED_ACCOUNT`, another `Sql`, or a string taken
 * as SQL text (column lists and other constants of the code, never a request's value: those are
 * parameters).
 */
export function sql(strings: TemplateStringsArray, ...values: readonly Part[]): Sql {
  const parts: Part[] = [];
  strings.forEach((s, i) => {
    if (s) parts.push(s);
    if (i < values.length) parts.push(values[i]!);
  });
  return new Sql(parts);
}

/** The empty piece, for a filter that is not there. */
export const NOTHING = new Sql([]);

/** Named parameters of these SQL types: `params({ id: 'uuid' }).id` is the parameter `id`. */
export function params<Names extends string>(types: Record<Names, string>): Record<Names, Param> {
  return Object.fromEntries(
    Object.entries<string>(types).map(([name, type]) => [name, { kind: 'param', name, type }]),
  ) as Record<Names, Param>;
}
