import type { WriteReport } from '../../actions/articles';

/**
 * What creating the article reported (failed images, warnings, removed markup), handed from the
 * new-article form to the editor it opens, through this tab's session storage, and read once.
 * Article problems only: never a token or a session id.
 */
function key(postId: string): string {
  return `console-created-report:${postId}`;
}

export function handOverCreatedReport(postId: string, report: WriteReport): void {
  try {
    window.sessionStorage.setItem(key(postId), JSON.stringify(report));
  } catch {
    // Storage disabled: the editor opens without the report; the next save shows it again.
  }
}

export function takeCreatedReport(postId: string): WriteReport | null {
  try {
    const raw = window.sessionStorage.getItem(key(postId));
    window.sessionStorage.removeItem(key(postId));
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<WriteReport>;
    if (!Array.isArray(parsed.failedImages) || !Array.isArray(parsed.warnings) || !Array.isArray(parsed.removed))
      return null;
    return parsed as WriteReport;
  } catch {
    return null;
  }
}
