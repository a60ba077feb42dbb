import { DomainError } from '../foundation/errors';

/**
 * A document the pipeline refuses. The message is shown to API clients in a 400 body
 * (a 400 has no `code`, so the message must carry the reason): it always starts with "markdown: "
 * and names the problem.
 */
export class ContentRejectedError extends DomainError {
  constructor(problem: string) {
    super('invalid', problem.startsWith('markdown: ') ? problem : `markdown: ${problem}`);
    this.name = 'ContentRejectedError';
  }
}

export const REJECT = {
  empty: 'markdown: document is empty after conversion',
  tooLarge: (limitBytes: number) => `markdown: document too large (more than ${limitBytes} bytes)`,
  nesting: (what: string, limit: number) => `markdown: nesting too deep (more than ${limit} levels of ${what})`,
  delimiterRun: (limit: number) =>
    `markdown: nesting too deep (a run of more than ${limit} * or _ emphasis delimiters)`,
  paragraphDelimiters: (limit: number) =>
    `markdown: too many * or _ emphasis delimiters in one paragraph (more than ${limit})`,
  paragraphBrackets: (limit: number) => `markdown: too many unmatched [ in one paragraph (more than ${limit})`,
  paragraphResources: (factor: number) =>
    `markdown: too many unclosed link destinations or titles ](… in one paragraph (they would scan more than ${factor}x its length)`,
  paragraphLabels: (limit: number) => `markdown: too many [ ] labels or links in one paragraph (more than ${limit})`,
  paragraphCloseBrackets: (factor: number) =>
    `markdown: too many unmatched ] in one paragraph (they would scan more than ${factor}x its length)`,
  stackExhausted: 'markdown: nesting too deep (the converter ran out of stack)',
  timeBudget: 'markdown: too complex to convert within the time budget',
  memory: 'markdown: too complex to convert within the memory budget',
} as const;

/**
 * The conversion workers are saturated: too many documents wait (of this account or in all), or
 * this one waited its whole time budget without a worker. Not the document's fault: `unavailable`
 * (503), so clients retry.
 */
export class ConversionBusyError extends DomainError {
  constructor(message = 'Conversion queue is full; retry shortly') {
    super('unavailable', message);
    this.name = 'ConversionBusyError';
  }
}
