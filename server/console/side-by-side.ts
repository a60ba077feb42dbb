import 'server-only';
import type { StatementRunner } from '../../db/statements';
import { articleMarkup, escapeHtml, READER_STYLESHEET, type ArticleView } from '../reader-pages/article-document';
import { SIDE_BY_SIDE_GAP_PX } from './frame-layout';
import { spend } from './console-charges';
import { findPreview, revisionView } from './preview';
import { frameMessage, type FrameAnswer } from './preview-frame';
import { ConsoleProblem } from './problems';
import type { ConsoleSession } from './session-store';
import { isDomainError } from '../foundation/errors';
import { UUID_PATTERN } from '../foundation/uuid';
import { readRevision } from '../services/posts/revisions';

/**
 * Two versions of an article side by side in ONE sandboxed document, each in a column as wide as
 * a reader's screen, so they scroll together: one scroll container moves both, by wheel,
 * keyboard or scrollbar, with no script anywhere (a preview frame runs none, and its opaque
 * origin keeps the console's script from reading a frame's scroll position: two frames could
 * not be kept in step without weakening the sandbox). Each column lays the article out as a
 * reader's viewport of its width does, because the readers' stylesheet sizes nothing by the
 * viewport (no media queries, no viewport units: tests/unit/console/side-by-side.test.ts).
 */

interface Side {
  /** Names the column for assistive technology inside the frame; the console captions it too. */
  label: string;
  view: ArticleView;
}

/**
 * The two columns share one scroll container, which is also the document's one keyboard stop:
 * a frame with nothing focusable in it is passed over by Tab, so a keyboard user could not
 * scroll the document itself; this container takes the focus (tabindex, no script) and then
 * arrows, Page Up/Down, Home and End scroll both columns.
 */
const PAIR_CSS = `
.dp-pair{height:100vh;overflow:auto;display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);column-gap:${SIDE_BY_SIDE_GAP_PX}px;background:linear-gradient(#d0d7de,#d0d7de) 50% 0/1px 100% no-repeat}
.dp-pair:focus-visible{outline:3px solid #0a58ca;outline-offset:-3px}
.dp-pair__side{min-width:0}
`;

function sideBySideDocument(left: Side, right: Side): string {
  const side = (s: Side) =>
    `<section class="dp-pair__side" aria-label="${escapeHtml(s.label)}"><div class="reader"><article class="dp-article">${articleMarkup(s.view)}</article></div></section>`;
  const both = `${left.label} and ${right.label}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(both)}</title><style>${READER_STYLESHEET}</style><style>${PAIR_CSS}</style></head>
<body><div class="dp-pair" tabindex="0" role="region" aria-label="${escapeHtml(`${both}, side by side`)}">${side(left)}${side(right)}</div></body></html>`;
}

const VERSION_LABELS = { published: 'Published version', working: 'Working version', submitted: 'Submitted version' };

const isVersionName = (which: string): which is keyof typeof VERSION_LABELS => Object.hasOwn(VERSION_LABELS, which);

/** A side asked for: a saved version by name, or one of the article's saved revisions by id. */
async function readSide(
  db: StatementRunner,
  session: ConsoleSession,
  id: string,
  which: string,
  /** How a revision is named: two saves can share a second, so the history form's words tell them apart. */
  position: 'Compared:' | 'With:',
): Promise<Side | null> {
  if (isVersionName(which)) {
    const view = await findPreview(db, session, id, which);
    return view && { label: VERSION_LABELS[which], view };
  }
  try {
    const revision = await readRevision(db, session.auth.account.id, id, which);
    return {
      label: `${position} saved ${revision.savedAt.slice(0, 19).replace('T', ' ')} UTC`,
      view: revisionView(revision),
    };
  } catch (err) {
    if (isDomainError(err, 'not_found')) return null;
    throw err;
  }
}

/**
 * The side-by-side frame of `left` and `right` (each `published`, `working`, `submitted` or a
 * revision id of the history). The saved versions come with the article page's read, as the
 * single-version frames do; revisions are read on request, so that frame spends a read.
 */
export async function sideBySideFrame(
  db: StatementRunner,
  session: ConsoleSession,
  id: string,
  which: { left: string; right: string },
): Promise<FrameAnswer> {
  if (!UUID_PATTERN.test(id)) return frameMessage(404, 'That article does not exist.');
  if (!isVersionName(which.left) || !isVersionName(which.right)) {
    try {
      await spend(db, session.auth, 'read');
    } catch (err) {
      if (err instanceof ConsoleProblem) return frameMessage(429, err.message);
      throw err;
    }
  }
  const left = await readSide(db, session, id, which.left, 'Compared:');
  const right = await readSide(db, session, id, which.right, 'With:');
  if (!left || !right) return frameMessage(404, 'One of these versions does not exist or is no longer kept.');
  return { status: 200, html: sideBySideDocument(left, right) };
}
