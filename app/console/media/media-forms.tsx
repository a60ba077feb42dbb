'use client';

import { useActionState, useRef, useState } from 'react';
import { useRouter } from 'next/navigation';
import type { FromUrlOutcome } from '../actions/media';
import { CopyButton } from '../components/copy-button';

type UploadState =
  | { phase: 'idle' }
  | { phase: 'uploading'; name: string; loaded: number; total: number }
  | { phase: 'done'; snippet: string; message: string }
  | { phase: 'failed'; error: string };

/**
 * Upload by file picker or drag-and-drop, with a progress bar. XMLHttpRequest because fetch
 * reports no upload progress; the route answers with a sentence on failure.
 */
export function UploadBox({ csrf }: { csrf: string }) {
  const [state, setState] = useState<UploadState>({ phase: 'idle' });
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const router = useRouter();

  const upload = (file: File) => {
    const body = new FormData();
    body.append('file', file);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/console/media/upload');
    xhr.setRequestHeader('x-csrf-token', csrf);
    xhr.setRequestHeader('x-file-name', encodeURIComponent(file.name)); // kept for the editor's library labels
    xhr.upload.onprogress = (e) =>
      setState({
        phase: 'uploading',
        name: file.name,
        loaded: e.loaded,
        total: e.lengthComputable ? e.total : file.size,
      });
    xhr.onerror = () =>
      setState({ phase: 'failed', error: 'The upload did not reach the server. Check the connection and try again.' });
    xhr.onload = () => {
      let result: {
        ok: boolean;
        error?: string;
        media?: { snippet: string; width: number; height: number };
        /** The same file was in the library already: its entry was used (the notice says so). */
        reused?: { notice: string } | null;
      } | null = null;
      try {
        result = JSON.parse(xhr.responseText);
      } catch {
        result = null;
      }
      if (result?.ok && result.media) {
        setState({
          phase: 'done',
          snippet: result.media.snippet,
          message: result.reused?.notice ?? `Stored ${file.name} (${result.media.width}×${result.media.height}).`,
        });
        router.refresh();
      } else {
        setState({ phase: 'failed', error: result?.error ?? `The upload failed (HTTP ${xhr.status}).` });
      }
    };
    setState({ phase: 'uploading', name: file.name, loaded: 0, total: file.size });
    xhr.send(body);
  };

  return (
    <section className="card" aria-labelledby="upload-heading">
      <h2 id="upload-heading">Upload an image</h2>
      <div
        className="dropzone"
        data-active={dragging}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          const file = e.dataTransfer.files[0];
          if (file) upload(file);
        }}
      >
        <p>Drop an image here, or</p>
        <label htmlFor="media-file" className="button">
          Choose a file…
        </label>
        <input
          ref={input}
          id="media-file"
          type="file"
          accept="image/jpeg,image/png,image/webp,image/gif,image/avif"
          className="visually-hidden"
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) upload(file);
            e.target.value = '';
          }}
        />
        <p className="muted">JPEG, PNG, WebP, AVIF or a still GIF, up to 50 MiB.</p>
      </div>
      {state.phase === 'uploading' && (
        <div className="upload-progress">
          <label htmlFor="upload-progress">Uploading {state.name}</label>
          <progress id="upload-progress" max={state.total || 1} value={state.loaded} />
        </div>
      )}
      {state.phase === 'failed' && (
        <p className="error" role="alert">
          {state.error}
        </p>
      )}
      {state.phase === 'done' && <StoredSnippet message={state.message} snippet={state.snippet} />}
    </section>
  );
}

export function FromUrlForm({
  action,
  csrf,
}: {
  action: (prev: FromUrlOutcome, formData: FormData) => Promise<FromUrlOutcome>;
  csrf: string;
}) {
  const [state, formAction, pending] = useActionState(action, null);
  return (
    <section className="card" aria-labelledby="from-url-heading">
      <h2 id="from-url-heading">Store from a URL</h2>
      <form action={formAction}>
        <input type="hidden" name="csrf" value={csrf} />
        <label htmlFor="media-url">Image URL</label>
        <input id="media-url" name="url" type="url" placeholder="https://example.com/picture.jpg" required />
        <p>
          <button type="submit" className="primary" disabled={pending}>
            {pending ? 'Storing…' : 'Store image'}
          </button>
        </p>
      </form>
      {state && !state.ok && (
        <p className="error" role="alert">
          {state.error}
        </p>
      )}
      {state?.ok && <StoredSnippet message={state.message} snippet={state.snippet} />}
    </section>
  );
}

function StoredSnippet({ message, snippet }: { message: string; snippet: string }) {
  return (
    <div role="status" className="stored">
      <p className="success">{message}</p>
      <code className="snippet">{snippet}</code>
      <CopyButton text={snippet} label="Copy Markdown" />
    </div>
  );
}
