import type { Metadata } from 'next';
import { consoleParts, requireSession } from '@/server/console/context';
import { spend } from '@/server/console/console-charges';
import { describeProblem } from '@/server/console/problems';
import { dailyMediaBytesUsed, spentThisMinute } from '@/server/services/access/account-usage';
import { limitFor } from '@/server/model/account';
import { RATE_CLASS_NAMES, RATE_CLASSES, type RateClass } from '@/server/model/rate-classes';
import { listTokens, MAX_ACTIVE_TOKENS } from '@/server/services/access/tokens';
import type { TokenRecord } from '@/server/model/token';
import { createApiToken, reissueApiToken, revokeApiToken } from '../actions/tokens';
import { CardTable } from '../components/card-table';
import { ConfirmAction } from '../components/confirm-action';
import { Problem } from '../components/problem';
import { formatBytes, formatDateTime } from '../components/format';
import { CreateTokenForm } from './create-token-form';

export const metadata: Metadata = { title: 'Account' };

export default async function AccountPage() {
  const session = await requireSession();
  const account = session.auth.account;
  const { db } = consoleParts();
  let tokens: TokenRecord[];
  let mediaUsed: number;
  let used: Record<RateClass, number>;
  try {
    await spend(db, session.auth, 'read'); // what GET /me costs
    tokens = await listTokens(db, account.id);
    mediaUsed = await dailyMediaBytesUsed(db, account.id);
    used = await spentThisMinute(db, account.id);
  } catch (err) {
    return <Problem title="Account" message={describeProblem(err)} />;
  }
  const active = tokens.filter((t) => !t.revoked_at).length;

  return (
    <>
      <h1>Account @{account.handle}</h1>

      <section aria-labelledby="tokens-heading" className="card">
        <h2 id="tokens-heading">API tokens</h2>
        <p className="muted">
          {active} of {MAX_ACTIVE_TOKENS} active. A secret is shown once, when it is created or reissued; afterwards
          only its prefix and last four characters. Reissue keeps the id and name and kills the old secret; revoke kills
          it for good. Either ends console sessions opened with that token.
        </p>
        <CardTable className="tokens" columns={['Name', 'Token', 'Created', 'Last used', 'Status']}>
          {tokens.map((t) => (
            <tr key={t.id} data-token-id={t.id}>
              <td>
                {t.name}
                {t.id === session.auth.tokenId && <span className="badge badge--session">this session</span>}
              </td>
              <td data-label="Token">
                <code>
                  {t.prefix}…{t.last_four}
                </code>
              </td>
              <td data-label="Created">{formatDateTime(t.created_at)}</td>
              <td data-label="Last used">
                {/* The console's own requests do not pass through the API's token check, so the stored time
                        lags for the session's token: it is in use right now. */}
                {t.id === session.auth.tokenId
                  ? 'now, by this console session'
                  : t.last_used_at
                    ? formatDateTime(t.last_used_at)
                    : 'never'}
              </td>
              <td data-label="Status">
                {t.revoked_at ? (
                  <span className="badge badge--revoked">Revoked {formatDateTime(t.revoked_at)}</span>
                ) : (
                  <span className="badge badge--published">Active</span>
                )}
              </td>
              <td>
                {!t.revoked_at && (
                  <div className="row-actions">
                    <ConfirmAction
                      action={reissueApiToken}
                      fields={{ token_id: t.id, csrf: session.csrfToken }}
                      label="Reissue"
                      question={`Reissue “${t.name}”?`}
                      detail="A new secret replaces the old one at once; integrations using the old secret get 401 until updated."
                      confirmLabel="Reissue"
                      caution
                    />
                    <ConfirmAction
                      action={revokeApiToken}
                      fields={{ token_id: t.id, csrf: session.csrfToken }}
                      label="Revoke"
                      question={`Revoke “${t.name}”?`}
                      detail={
                        t.id === session.auth.tokenId
                          ? 'This console session was opened with this token and ends too.'
                          : 'Integrations using it get 401 from now on. This cannot be undone.'
                      }
                      confirmLabel="Revoke"
                      danger
                    />
                  </div>
                )}
              </td>
            </tr>
          ))}
        </CardTable>
        <CreateTokenForm
          action={createApiToken}
          csrf={session.csrfToken}
          full={active >= MAX_ACTIVE_TOKENS}
          max={MAX_ACTIVE_TOKENS}
          activeTokenIds={tokens.filter((t) => !t.revoked_at).map((t) => t.id)}
        />
      </section>

      <section aria-labelledby="limits-heading" className="card">
        <h2 id="limits-heading">Limits and usage</h2>
        <p className="muted">
          Per account, shared by the API and this console. Minute windows restart on each full minute; the media quota
          at midnight UTC.
        </p>
        <ul className="bars">
          {RATE_CLASS_NAMES.map((cls) => (
            <Bar
              key={cls}
              label={`${capitalized(RATE_CLASSES[cls].words)} this minute`}
              used={used[cls]}
              limit={limitFor(account, cls)}
            />
          ))}
          <Bar label="Media stored today" used={mediaUsed} limit={account.dailyMediaBytes} format={formatBytes} />
        </ul>
      </section>
    </>
  );
}

/** One bar of the usage chart: the number is always written out next to it. */
function Bar({
  label,
  used,
  limit,
  format = String,
}: {
  label: string;
  used: number;
  limit: number;
  format?: (n: number) => string;
}) {
  const share = limit > 0 ? Math.min(1, used / limit) : 1;
  const level = share >= 1 ? 'full' : share >= 0.8 ? 'high' : 'ok';
  return (
    <li className="bar">
      <span className="bar__label">{label}</span>
      <span className="bar__track" aria-hidden="true">
        <span className={`bar__fill bar__fill--${level}`} style={{ width: `${(share * 100).toFixed(1)}%` }} />
      </span>
      <span className="bar__value">
        {format(used)} of {format(limit)}
      </span>
    </li>
  );
}

function capitalized(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}
