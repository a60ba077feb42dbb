'use client';

import { useState } from 'react';

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState<'copied' | 'failed' | null>(null);
  return (
    <button
      type="button"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setDone('copied');
        } catch {
          setDone('failed');
        }
        setTimeout(() => setDone(null), 2500);
      }}
    >
      <span aria-live="polite">{done === 'copied' ? 'Copied' : done === 'failed' ? 'Copy failed' : label}</span>
    </button>
  );
}
