/**
 * A large document's parse shared between its own worker (the leader) and whichever other workers
 * are free (helpers), in the parts parse-in-parts.ts plans and joins; the rest of the conversion
 * then runs on the joined tree in the leader as it would on the whole parse's.
 *
 * How, in worker threads that each run one synchronous task at a time:
 * - the leader offers every part but the first to the pool (`PartsOffer` on its task's `started`
 *   port), each with a MessagePort back to itself; the pool queues one task per part as spare
 *   work under the document's account (fair-queue.ts), last part first;
 * - each part is claimed once, by whoever gets there first, in a shared Int32Array (one slot per
 *   part): the leader claims from the first part on, helpers each claim the part of their task, so
 *   the two meet in the middle and no part waits for a worker that is not coming (a part no
 *   helper took in time is the leader's);
 * - a helper posts its part's nodes (positions already moved into the document) on the part's
 *   port, then marks the slot delivered and wakes the leader (Atomics.notify);
 * - the leader, done with its own parts, waits (Atomics.wait) for the parts helpers claimed and
 *   takes their nodes with receiveMessageOnPort: no event loop turn, so the worker's task stays
 *   synchronous like every other one.
 * A helper that fails marks its slot so (a stack overflow as such: the document is refused as it
 * would be whole); the leader then fails the same way. A helper the pool terminates (the
 * document's budget ran out) is never waited for: the pool terminates the leader too.
 */
import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { Root, RootContent } from 'mdast';
import { joinParts, parsePart, planParts } from './parse-in-parts';
import { PART_CHARS, PARTS_FROM_CHARS } from './conversion-bounds';
import {
  MARKDOWN_SYNTAX_EXTENSIONS,
  parseMarkdownSync,
  preparedMarkdown,
  renderTreeSync,
  withinStack,
} from './pipeline';
import type { RenderInput, RenderOutput } from './types';
import type { PartsOffer, PartToParse } from './task';

/** States of a part's slot in the claims array. */
const FREE = 0;
const LEADER = 1;
const HELPER = 2;
const DELIVERED = 3;
const STACK_EXHAUSTED = 4;
const FAILED = 5;

/** How long the leader sleeps between looks at a slot: a safety net, Atomics.notify wakes it first. */
const WAIT_MS = 1000;

type Parse = (text: string) => Root;

interface PartsParse {
  /** The whole document's tree; null when its parts did not join (parse it whole then). */
  tree: Root | null;
  parts: number;
  /** Parts other workers parsed. */
  byHelpers: number;
}

/**
 * `markdown` parsed in parts of about `partChars` characters, those that free workers claim in
 * time by them (`offer` hands the pool their tasks' data and the ports to transfer), or null when
 * the document cannot be cut (parse-in-parts.ts `planParts`).
 */
function parseInParallel(
  markdown: string,
  syntax: readonly { name: string }[],
  partChars: number,
  parse: Parse,
  offer: (offer: PartsOffer, transfer: MessagePort[]) => void,
): PartsParse | null {
  const parts = planParts(markdown, syntax, partChars);
  if (!parts || parts.length < 2) return null;
  const claims = new Int32Array(new SharedArrayBuffer(4 * parts.length));
  const channels = parts.map(() => new MessageChannel());
  try {
    const offered = parts.slice(1).map((part, k) => ({
      index: k + 1,
      text: markdown.slice(part.start, part.end),
      start: part.start,
      lineBefore: part.lineBefore,
      claims: claims.buffer as SharedArrayBuffer,
      port: channels[k + 1]!.port2,
    }));
    offer(
      { parts: offered },
      offered.map((part) => part.port),
    );
    const nodes: RootContent[][] = [];
    for (const [i, part] of parts.entries()) {
      if (Atomics.compareExchange(claims, i, FREE, LEADER) !== FREE) continue;
      nodes[i] = parsePart(markdown.slice(part.start, part.end), part, parse);
    }
    let byHelpers = 0;
    for (let i = 0; i < parts.length; i++) {
      if (nodes[i]) continue;
      nodes[i] = delivered(claims, i, channels[i]!.port1);
      byHelpers++;
    }
    return { tree: joinParts(markdown, parts, nodes), parts: parts.length, byHelpers };
  } finally {
    for (const { port1 } of channels) port1.close();
  }
}

/**
 * `input` converted with its parse shared with free workers (see the header) when it has at
 * least `fromChars` characters (PARTS_FROM_CHARS unless a test lowers it), or null for a smaller
 * one (convert it as usual). A large document that cannot be cut is parsed whole here (`parts`
 * 1). The same output as pipeline.ts `renderArticleSync`, rejections included.
 */
export function renderArticleInParts(
  input: RenderInput,
  offer: (offer: PartsOffer, transfer: MessagePort[]) => void,
  fromChars: number = PARTS_FROM_CHARS,
): { output: RenderOutput; parts: number; byHelpers: number } | null {
  if (typeof input.markdown !== 'string' || input.markdown.length < fromChars) return null;
  const markdown = preparedMarkdown(input);
  const parsed = withinStack(() =>
    parseInParallel(markdown, MARKDOWN_SYNTAX_EXTENSIONS, PART_CHARS, parseMarkdownSync, offer),
  );
  if (parsed?.tree) {
    return { output: renderTreeSync(input, markdown, parsed.tree), parts: parsed.parts, byHelpers: parsed.byHelpers };
  }
  const tree = withinStack(() => parseMarkdownSync(markdown));
  return { output: renderTreeSync(input, markdown, tree), parts: 1, byHelpers: parsed?.byHelpers ?? 0 };
}

/** The nodes of part `i`, claimed by a helper, once it has delivered them. */
function delivered(claims: Int32Array, i: number, port: MessagePort): RootContent[] {
  for (;;) {
    const state = Atomics.load(claims, i);
    if (state === HELPER) {
      Atomics.wait(claims, i, HELPER, WAIT_MS);
      continue;
    }
    if (state === STACK_EXHAUSTED) throw new RangeError(`part ${i} of the document exhausted the stack`);
    if (state === FAILED) throw new Error(`part ${i} of the document failed in another worker`);
    const message = receiveMessageOnPort(port);
    if (message) return message.message as RootContent[];
    // Delivered but not in the port's queue yet: posted just before the slot was marked.
    Atomics.wait(claims, i, state, 1);
  }
}

/**
 * A helper's task: parses `part` and delivers its nodes unless the leader claimed it first.
 * Whether it parsed it.
 */
export function parseOfferedPart(part: PartToParse, parse: Parse): boolean {
  const claims = new Int32Array(part.claims);
  try {
    if (Atomics.compareExchange(claims, part.index, FREE, HELPER) !== FREE) return false;
    let state = FAILED;
    try {
      part.port.postMessage(parsePart(part.text, part, parse));
      state = DELIVERED;
    } catch (error) {
      if (error instanceof RangeError) state = STACK_EXHAUSTED;
      else throw error;
    } finally {
      Atomics.store(claims, part.index, state);
      Atomics.notify(claims, part.index);
    }
    return true;
  } finally {
    part.port.close();
  }
}
