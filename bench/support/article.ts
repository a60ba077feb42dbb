/**
 * The benchmark article: about 3 KB of ordinary Markdown (headings, emphasis, lists, a link,
 * a quote, a code block and a table), the size of a typical blog post without images.
 */
export const BENCH_TITLE = 'Notes on keeping a small service fast';

export const BENCH_MARKDOWN = `A service that answers in a few milliseconds on a quiet laptop can still feel slow to the
people who use it. Most of the time is not spent where the code looks busy: it goes to work
that nobody asked for, repeated on every request.

## Measure the whole path

Start from the socket and end at the socket. A *profile* of the handler alone hides the
router, the body parser, the logger and the serialiser, and together they often cost more
than the query. Compare against the **leanest honest implementation** of the same work, in
one interleaved run, so that the machine's drift cancels out.

- Count round trips to the database per request, not queries per handler.
- Keep prepared statements: parsing and planning the same SQL again is pure waste.
- Map rows straight to the response when nothing else needs an object.

## Writes are a different budget

A write converts Markdown, checks limits and stores a row in one transaction. It can afford
a few milliseconds more, as long as it never blocks the reads that share the process:

1. convert in worker threads, one core left for the event loop;
2. bound the queue, and refuse quickly when it is full;
3. never hold a row lock while waiting for the network.

> The fastest request is the one the cache answers. The second fastest is the one that does
> exactly what it must, once.

## A small example

\`\`\`ts
const started = process.hrtime.bigint();
res.on('finish', () => {
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  histogram.observe({ route }, ms / 1000);
});
\`\`\`

| What | Before | After |
| --- | ---: | ---: |
| Round trips per read | 3 | 2 |
| Statements planned per call | all | none |
| Log writes per request | 1 | batched |

Read more in the [PostgreSQL documentation on PREPARE](https://www.postgresql.org/docs/current/sql-prepare.html),
then measure again: a number you did not take yourself is a rumour.
`;
