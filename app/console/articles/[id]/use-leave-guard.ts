'use client';

import { useEffect, useRef } from 'react';
import { setUnsavedText } from './unsaved-state';

/**
 * What unsaved text means for the rest of the page: Publish (in the page's header) refuses
 * while there is some, and leaving asks first (the browser's own prompt for reloads, closing
 * and typed addresses; a confirmation for the console's own links, which navigate without
 * unloading). Also Ctrl+S (⌘S) saves wherever the focus is on the page, leaving it there.
 * Returns `allowLeaving`, for the editor's own reload after it dropped the text on purpose.
 */
export function useLeaveGuard(dirty: boolean, editForm: React.RefObject<HTMLFormElement | null>) {
  const leaving = useRef(false);

  useEffect(() => {
    setUnsavedText(dirty);
    return () => setUnsavedText(false);
  }, [dirty]);

  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.key.toLowerCase() !== 's') return;
      e.preventDefault();
      editForm.current?.requestSubmit();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [editForm]);

  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (leaving.current) return;
      e.preventDefault();
      e.returnValue = '';
    };
    const onClick = (e: MouseEvent) => {
      const link = e.target instanceof Element ? e.target.closest('a[href]') : null;
      if (!(link instanceof HTMLAnchorElement) || link.target || e.defaultPrevented) return;
      if (new URL(link.href).origin !== window.location.origin) return;
      if (!window.confirm('You have unsaved changes. Leave this page without saving them?')) e.preventDefault();
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, [dirty]);

  return {
    allowLeaving: () => {
      leaving.current = true;
    },
  };
}
