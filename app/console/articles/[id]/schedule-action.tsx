'use client';

import { useActionState, useEffect, useId, useRef, useState } from 'react';
import type { StateChangeOutcome } from '../../actions/articles';
import { ActionResult } from '../../components/action-result';
import { formatDateTime } from '../../components/format';
import { useHydrated } from '../../components/use-hydrated';

export interface ScheduleState {
  publishAt: string;
  note: string | null;
  failed: boolean;
}

type Action = (prev: StateChangeOutcome, formData: FormData) => Promise<StateChangeOutcome>;

/** `datetime-local`'s value (minutes, UTC) for an instant. */
const utcField = (d: Date) => d.toISOString().slice(0, 16);

/**
 * "Schedule…": a dialog with the time to publish the saved working version at, and, when the
 * article has a schedule, what it is (or why it waits or stopped) and a way to cancel it. The
 * time field is UTC, as every time in the console is shown, so it means the same before the
 * page's script has loaded; once it has, the dialog also says the time in the writer's own zone.
 */
export function ScheduleAction({
  schedule,
  fields,
  scheduleAction,
  cancelAction,
  unavailable,
}: {
  schedule: ScheduleState | null;
  fields: Record<string, string>;
  scheduleAction: Action;
  cancelAction: Action;
  unavailable?: string;
}) {
  const [scheduled, setAction, setting] = useActionState(scheduleAction, null);
  const [cancelled, cancelFormAction, cancelling] = useActionState(cancelAction, null);
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const fieldId = useId();
  const [local, setLocal] = useState(() =>
    schedule ? utcField(new Date(schedule.publishAt)) : utcField(new Date(Date.now() + 3_600_000)),
  );
  // The writer's zone is known in the browser only (the server's HTML says UTC alone).
  const zone = useHydrated() ? Intl.DateTimeFormat().resolvedOptions().timeZone : null;
  // Any answer closes the dialog; it is said under the button, as ConfirmAction says its own.
  useEffect(() => {
    if (scheduled || cancelled) dialog.current?.close();
  }, [scheduled, cancelled]);
  const instant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(local) ? new Date(`${local}:00Z`) : null;
  const pending = setting || cancelling;
  // The answer shown is that of the form submitted last.
  const [last, setLast] = useState<'schedule' | 'cancel'>('schedule');
  const latest = last === 'cancel' ? cancelled : scheduled;

  return (
    <div className="confirm-action schedule-action">
      <button
        type="button"
        onClick={() => dialog.current?.showModal()}
        disabled={pending || Boolean(unavailable)}
        title={unavailable}
      >
        {schedule && !schedule.failed ? 'Scheduled…' : 'Schedule…'}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId} className="dialog">
        <form action={setAction} onSubmit={() => setLast('schedule')}>
          {Object.entries(fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <h2 id={titleId}>Publish later</h2>
          <p>
            At this time the saved working version is published as Publish would publish it then: a moderated
            account&apos;s goes to a moderator, and it counts against the publish limit of that minute.
          </p>
          {schedule && <ScheduleNote schedule={schedule} />}
          <p>
            <label htmlFor={fieldId}>Publish at (UTC)</label>
            <br />
            <input
              id={fieldId}
              type="datetime-local"
              name="local"
              required
              value={local}
              onChange={(e) => setLocal(e.target.value)}
            />
            {instant && <input type="hidden" name="publish_at" value={instant.toISOString()} />}
          </p>
          {zone && instant && (
            <p className="muted" aria-live="polite">
              In your time zone ({zone}):{' '}
              {instant.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
            </p>
          )}
          <div className="dialog__buttons">
            <button type="button" onClick={() => dialog.current?.close()}>
              Close
            </button>
            <button type="submit" className="primary">
              {schedule ? 'Change the schedule' : 'Schedule'}
            </button>
          </div>
        </form>
        {schedule && (
          <form action={cancelFormAction} onSubmit={() => setLast('cancel')} className="schedule-action__cancel">
            {Object.entries(fields).map(([name, value]) => (
              <input key={name} type="hidden" name={name} value={value} />
            ))}
            <button type="submit" className="caution">
              Cancel the schedule
            </button>
          </form>
        )}
      </dialog>
      <ActionResult state={latest} />
    </div>
  );
}

/** What the article's schedule is, or why its last attempt did not publish. */
export function ScheduleNote({ schedule }: { schedule: ScheduleState }) {
  if (schedule.failed)
    return (
      <p className="warning-box" role="status">
        The schedule for <time dateTime={schedule.publishAt}>{formatDateTime(schedule.publishAt)}</time> stopped.{' '}
        {schedule.note}
      </p>
    );
  return (
    <p className={schedule.note ? 'warning-box' : 'notice'} role="status">
      Scheduled to publish at <time dateTime={schedule.publishAt}>{formatDateTime(schedule.publishAt)}</time>.
      {schedule.note ? ` ${schedule.note}` : ''}
    </p>
  );
}
