'use client';

import { useActionState, useEffect } from 'react';
import { useRouter } from 'next/navigation';
import { createArticle, type NewArticleState } from '../../actions/articles';
import { handOverCreatedReport } from '../[id]/created-report';

export function NewArticleForm({ csrf }: { csrf: string }) {
  const [state, action, pending] = useActionState<NewArticleState, FormData>(createArticle, null);
  const router = useRouter();
  // Created: the editor opens and shows what the write reported, as it does after a save.
  useEffect(() => {
    if (!state?.ok) return;
    handOverCreatedReport(state.id, state.report);
    router.push(`/console/articles/${state.id}`);
  }, [state, router]);
  return (
    <form action={action} className="card stack">
      <input type="hidden" name="csrf" value={csrf} />
      <label htmlFor="new-title">Title</label>
      <input id="new-title" name="title" required defaultValue={state?.ok ? undefined : state?.values?.title} />
      <label htmlFor="new-markdown">Markdown</label>
      <textarea
        id="new-markdown"
        name="markdown"
        rows={14}
        required
        spellCheck={false}
        defaultValue={state?.ok ? undefined : state?.values?.markdown}
      />
      {state && !state.ok && (
        <p className="error" role="alert">
          {state.error}
        </p>
      )}
      <div>
        <button type="submit" className="primary" disabled={pending || Boolean(state?.ok)}>
          {pending || state?.ok ? 'Creating…' : 'Create draft'}
        </button>
      </div>
    </form>
  );
}
