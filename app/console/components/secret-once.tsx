'use client';

import { useState } from 'react';

/**
 * The one place a token secret appears: right after it was created or reissued, from that
 * action's result. It lives in this component's memory only and is gone on the next page.
 */
export function SecretOnce({ secret }: { secret: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <div className="secret-once">
      <label htmlFor="new-secret">New secret (shown once)</label>
      <div className="secret-once__row">
        <input id="new-secret" readOnly value={secret} onFocus={(e) => e.currentTarget.select()} spellCheck={false} />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p className="muted" aria-live="polite">
        {copied === 'yes'
          ? 'Copied to the clipboard.'
          : copied === 'failed'
            ? 'Copying failed: select the text and copy it yourself.'
            : 'Store it in your integration’s server-side secrets now.'}
      </p>
    </div>
  );
}
