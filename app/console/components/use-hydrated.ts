'use client';

import { useSyncExternalStore } from 'react';

const never = () => () => {};

/**
 * False in the server's HTML and during hydration, true once React owns the page. A control
 * whose native behaviour would do harm before then (a form's own submit puts its fields, the
 * CSRF token among them, into the address) stays disabled until it is true.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
