/**
 * Operator CLI (commands listed in the README): `npm run --silent cli -- <command>`.
 * Prints one JSON line on success; a readable message and exit 1 on error. Works whether
 * the server runs or not: the embedded cluster is joined when running, started otherwise.
 */
import { parseArgs } from 'node:util';
import { provideDatabase } from '../../db/provide-database';
import { env } from '../foundation/env';
import { createApp, type App } from '../runtime/create-app';
import { publishingOf } from '../runtime/request-contexts';
import { DomainError } from '../foundation/errors';
import {
  createAccount,
  deleteAccount,
  findLiveAccount,
  parseLimitOverride,
  updateAccount,
  type LimitOverrides,
} from '../services/access/accounts';
import { limitsOf } from '../services/access/account-usage';
import { approvePost, listPending, rejectPost } from '../services/posts/moderation';
import { canonicalPath } from '../services/posts/post-view';
import { createToken, listTokens, reissueToken, revokeToken } from '../services/access/tokens';
import { isUuid } from '../foundation/uuid';
import { isoTimestamp } from '../../db/statements';

const USAGE = `usage:
  account create <handle> [--admin] [--moderated] [--limit NAME=N]...
  account update <handle> [--moderated | --no-moderated] [--admin | --no-admin] [--limit NAME=N]...
  account delete <handle>
  token list <handle>
  token create <handle> [--name NAME]
  token reissue <token-id>
  token revoke <token-id>
  moderation list
  moderation approve <post-id>
  moderation reject <post-id> [--reason TEXT]`;

class UsageError extends Error {}

function limitsFrom(values: string[] | undefined): LimitOverrides {
  const limits: LimitOverrides = {};
  for (const spec of values ?? []) {
    const [name, value] = parseLimitOverride(spec);
    limits[name] = value;
  }
  return limits;
}

function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}

function needUuid(value: string | undefined, what: string): string {
  const v = need(value, what);
  if (!isUuid(v)) throw new UsageError(`${what} must be a UUID, got "${v}"`);
  return v.toLowerCase();
}

async function run(app: App, argv: string[]): Promise<unknown> {
  const db = app.db;
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      admin: { type: 'boolean' },
      'no-admin': { type: 'boolean' },
      moderated: { type: 'boolean' },
      'no-moderated': { type: 'boolean' },
      limit: { type: 'string', multiple: true },
      name: { type: 'string' },
      reason: { type: 'string' },
    },
  });
  const [group, command, arg] = positionals;
  switch (`${group} ${command}`) {
    case 'account create': {
      const { account, secret } = await createAccount(db, need(arg, '<handle>'), {
        admin: values.admin ?? false,
        moderated: values.moderated ?? false,
        limits: limitsFrom(values.limit),
      });
      return { id: account.id, handle: account.handle, token: secret };
    }
    case 'account update': {
      if (values.moderated && values['no-moderated'])
        throw new UsageError('--moderated and --no-moderated exclude each other');
      const account = await updateAccount(db, need(arg, '<handle>'), {
        moderated: values.moderated ? true : values['no-moderated'] ? false : undefined,
        admin: values.admin ? true : values['no-admin'] ? false : undefined,
        limits: limitsFrom(values.limit),
      });
      return {
        id: account.id,
        handle: account.handle,
        admin: account.isAdmin,
        moderated: account.isModerated,
        limits: limitsOf(account),
      };
    }
    case 'account delete': {
      const account = await deleteAccount(db, need(arg, '<handle>'), app.announce);
      return { id: account.id, handle: account.handle, deleted: true };
    }
    case 'token list': {
      const account = await findLiveAccount(db, need(arg, '<handle>'));
      return listTokens(db, account.id);
    }
    case 'token create': {
      const account = await findLiveAccount(db, need(arg, '<handle>'));
      const { token, secret } = await createToken(db, account.id, values.name ?? 'API token');
      return { id: token.id, name: token.name, token: secret };
    }
    case 'token reissue': {
      const { token, secret } = await reissueToken(db, needUuid(arg, '<token-id>'));
      return { id: token.id, name: token.name, token: secret };
    }
    case 'token revoke': {
      const token = await revokeToken(db, needUuid(arg, '<token-id>'));
      return { id: token.id, name: token.name, revoked_at: token.revoked_at };
    }
    case 'moderation list': {
      const posts = await listPending(db);
      return posts.map((p) => ({
        id: p.id,
        account_id: p.accountId,
        title: p.title,
        canonical_path: canonicalPath(p.slug, p.publicId),
        submitted_at: p.submittedAt,
      }));
    }
    case 'moderation approve': {
      const post = await approvePost(publishingOf(app), needUuid(arg, '<post-id>'));
      return { id: post.id, status: post.status, published_at: post.published_at && isoTimestamp(post.published_at) };
    }
    case 'moderation reject': {
      const post = await rejectPost(publishingOf(app), needUuid(arg, '<post-id>'), values.reason ?? null);
      return { id: post.id, status: post.status, reason: post.moderation_note };
    }
    default:
      throw new UsageError(group ? `unknown command "${positionals.join(' ')}"` : 'no command given');
  }
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help') {
    process.stdout.write(USAGE + '\n');
    process.exit(argv.length === 0 ? 1 : 0);
  }
  let db: Awaited<ReturnType<typeof provideDatabase>> | undefined;
  let app: App | undefined;
  let code = 0;
  try {
    db = await provideDatabase(
      { databaseUrl: env.DATABASE_URL, dataDir: env.dataDir, pooler: env.DATABASE_POOLER },
      () => {},
    );
    // Changes made here purge the shared caches as the server's would; outcomes go to stderr.
    app = createApp({
      databaseUrl: db.url,
      poolerMode: db.mode,
      write: (line) => process.stderr.write(JSON.stringify(line) + '\n'),
    });
    const result = await run(app, argv);
    process.stdout.write(JSON.stringify(result) + '\n');
  } catch (err) {
    code = 1;
    if (err instanceof UsageError) process.stderr.write(`error: ${err.message}\n${USAGE}\n`);
    else if (err instanceof DomainError) process.stderr.write(`error: ${err.message}\n`);
    else if (
      err instanceof Error &&
      err.name === 'TypeError' &&
      'code' in err &&
      String(err.code).startsWith('ERR_PARSE_ARGS')
    )
      process.stderr.write(`error: ${err.message}\n${USAGE}\n`);
    else process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  } finally {
    // A purge that failed is retried for a few seconds: the CLI waits for it before exiting.
    await app?.close({ purgePatienceMs: 15_000 }).catch(() => {});
    await db?.stop().catch(() => {});
  }
  process.exit(code);
}

void main();
