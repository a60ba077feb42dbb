'use client';

import { useActionState } from 'react';
import { createArticle, type NewArticleState } from '../../actions/articles';

export function NewArticleForm({ csrf }: { csrf: string }) {
  const [state, action, pending] = useActionState<NewArticleState, FormData>(createArticle, null);
  return (
    <form action={action} className="card stack">
      <input type="hidden" name="csrf" value={csrf} />
      <label htmlFor="new-title">Title</label>
      <input id="new-title" name="title" required defaultValue={state?.values?.title} />
      <label htmlFor="new-markdown">Markdown</label>
      <textarea
        id="new-markdown"
        name="markdown"
        rows={14}
        required
        spellCheck={false}
        defaultValue={state?.values?.markdown}
      />
      {state && !state.ok && (
        <p className="error" role="alert">
          {state.error}
        </p>
      )}
      <div>
        <button type="submit" className="primary" disabled={pending}>
          {pending ? 'Creating…' : 'Create draft'}
        </button>
      </div>
    </form>
  );
}
