'use client';

import { useActionState, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { ActionResult } from './action-result';

type Outcome = { ok: true; message: string; secret?: string } | { ok: false; error: string } | null;

/**
 * A button that asks first, in a modal <dialog> (focus is trapped and Escape cancels, by the
 * platform), then runs a server action with the article id and the session's CSRF token.
 */
export function ConfirmAction({
  action,
  fields,
  label,
  question,
  detail,
  confirmLabel,
  danger = false,
  caution = false,
  unavailable,
  blocked,
  pageState,
  also,
  children,
}: {
  action: (prev: Outcome, formData: FormData) => Promise<Outcome>;
  fields: Record<string, string>;
  label: string;
  question: string;
  detail?: string;
  confirmLabel: string;
  danger?: boolean;
  /** An action that takes something away (unpublish, reissue): its own colour, not the primary one. */
  caution?: boolean;
  /** Why the action does not apply right now; the button stays (with its last result) but is disabled. */
  unavailable?: string;
  /** Why it cannot be confirmed yet (unsaved text, say): said in the dialog, whose confirm button is disabled. */
  blocked?: string;
  /**
   * The state of the page the success message speaks of: once it differs from what it was when
   * the action answered, the message is no longer true and is not shown (an error still is).
   */
  pageState?: string;
  /** A second button opening the same dialog (Publish's "What changes"), after `onOpen` runs. */
  also?: { label: string; onOpen: () => void };
  /** More of the dialog, under its detail (Publish's diff). */
  children?: ReactNode;
}) {
  const tone = danger ? 'danger' : caution ? 'caution' : 'primary';
  // A dialog that takes something away (delete, revoke, reissue, unpublish) or cannot be confirmed
  // yet opens on Cancel, so Enter or a hurried Space never confirms it.
  const cancelFirst = danger || caution || Boolean(blocked);
  const [state, formAction, pending] = useActionState(action, null);
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  // The page state each answer came in: a success is shown while the page is still in it.
  const [answeredIn, setAnsweredIn] = useState<{ state: Outcome; pageState?: string }>({ state: null });
  if (answeredIn.state !== state) setAnsweredIn({ state, pageState });
  const shown = state?.ok && answeredIn.pageState !== pageState ? null : state;
  useEffect(() => {
    if (state) dialog.current?.close();
  }, [state]);

  return (
    <div className="confirm-action">
      <button
        type="button"
        className={tone}
        onClick={() => dialog.current?.showModal()}
        disabled={pending || Boolean(unavailable)}
        title={unavailable}
        aria-describedby={unavailable ? `${titleId}-why` : undefined}
      >
        {pending ? `${label}…` : label}
      </button>
      {also && (
        <button
          type="button"
          onClick={() => {
            also.onOpen();
            dialog.current?.showModal();
          }}
          disabled={pending || Boolean(unavailable)}
        >
          {also.label}
        </button>
      )}
      {unavailable && (
        <span id={`${titleId}-why`} className="visually-hidden">
          {unavailable}
        </span>
      )}
      <dialog ref={dialog} aria-labelledby={titleId} className="dialog">
        <form action={formAction}>
          {Object.entries(fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <h2 id={titleId}>{question}</h2>
          {detail && <p>{detail}</p>}
          {children}
          {blocked && (
            <p className="warning-box" role="alert">
              {blocked}
            </p>
          )}
          <div className="dialog__buttons">
            <button type="button" onClick={() => dialog.current?.close()} autoFocus={cancelFirst}>
              Cancel
            </button>
            <button type="submit" className={tone} autoFocus={!cancelFirst} disabled={Boolean(blocked)}>
              {confirmLabel}
            </button>
          </div>
        </form>
      </dialog>
      <ActionResult state={shown} />
    </div>
  );
}
