/**
 * Ordinary documents of a given size, one per kind of content a new author may send: prose, GFM
 * tables, nested lists, code blocks, images, HTML islands and the corpus articles concatenated.
 * Nothing here is built to be slow: each is a short, plausible block repeated (with a counter, so
 * no two blocks are identical) until the document reaches `bytes` UTF-8 bytes, cut at a block
 * boundary. bench/content.ts converts them at nearly the contract's 2 MB limit; the golden test
 * pins their output at a small size.
 */
import { articles } from './corpus';

const U = ['0f8fad5b-d9cb-469f-a165-70867728950e', '7c9e6679-7425-40de-944b-e07fc1f90ae7'];

function repeatBlocks(bytes: number, block: (i: number) => string): string {
  let out = '';
  let size = 0;
  for (let i = 1; ; i++) {
    const next = block(i);
    const length = Buffer.byteLength(next);
    if (size + length > bytes && size > 0) return out;
    out += next;
    size += length;
  }
}

const prose = (i: number) =>
  `## Section ${i}\n\n` +
  `Writing about systems is mostly *explaining trade-offs*: what a change costs, who pays for it and when. ` +
  `Section ${i} keeps the **important numbers** next to the claims, links to [the source ${i}](https://example.com/notes/${i}) ` +
  `and names functions such as \`render${i}()\` in code spans.\n\n` +
  `A second paragraph follows, a little longer, with an autolinked https://example.org/${i} address, ` +
  `~~a struck remark~~, a footnote-free aside (in brackets) and an ordinary sentence to end it. ` +
  `Readers skim, so the point comes first and the detail after it.\n\n`;

const table = (i: number) => {
  const rows = Array.from(
    { length: 40 },
    (_, r) =>
      `| ${i}.${r} | item *${r}* | \`code-${r}\` | [link](https://example.com/t/${i}/${r}) | ${(r * 37) % 101} ms |`,
  );
  return `### Table ${i}\n\n| id | name | key | source | time |\n| --- | :--- | :---: | --- | ---: |\n${rows.join('\n')}\n\n`;
};

const list = (i: number) =>
  `- Item ${i} with *emphasis*\n` +
  `  - nested ${i}.1 with a [link](https://example.com/l/${i})\n` +
  `    - deeper ${i}.1.1\n` +
  `      1. ordered ${i}.1.1.1\n` +
  `      2. ordered ${i}.1.1.2 with \`code\`\n` +
  `    - deeper ${i}.1.2\n` +
  `  - nested ${i}.2\n` +
  `    - [ ] task ${i}.2.1\n` +
  `    - [x] task ${i}.2.2 done\n`;

const code = (i: number) =>
  `Step ${i}: the handler below reads the request and answers in one pass.\n\n` +
  '```ts\n' +
  `export async function handler${i}(req: Request): Promise<Response> {\n` +
  `  const body = await req.json();\n` +
  `  if (!body || typeof body.id !== 'string') return new Response('bad', { status: 400 });\n` +
  `  const row = await db.query('SELECT * FROM t WHERE id = $1 AND n < ${i}', [body.id]);\n` +
  `  return Response.json({ ok: true, row, step: ${i} }); // <b>not html</b> & *not emphasis*\n` +
  `}\n` +
  '```\n\n';

const images = (i: number) =>
  `![Diagram ${i}](https://img.example.com/diagrams/${i}.png "Figure ${i}")\n\n` +
  `Text between the pictures, with a stored one: ![stored ${i}](/api/media/${U[i % 2]}) and a ` +
  `reference image ![ref ${i}][img${i}].\n\n[img${i}]: //cdn.example.net/ref/${i}.jpg\n\n`;

const islands = (i: number) =>
  `<figure class="dp-figure" data-layout="mid"><img src="/api/media/${U[0]}" alt="A ${i}"><figcaption class="dp-figure__caption">Caption <em>${i}</em></figcaption></figure>\n\n` +
  `<figure class="dp-gallery" data-layout="full"><div class="dp-gallery__items"><figure class="dp-figure"><img src="https://e.com/${i}a.png" alt="a"></figure><figure class="dp-figure"><img src="https://e.com/${i}b.png" alt="b"></figure></div><figcaption class="dp-figure__caption">Gallery ${i}</figcaption></figure>\n\n` +
  `<div data-video data-provider="youtube" data-source="embed"><iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ" allowfullscreen></iframe></div>\n\n` +
  `<div class="dp-embed" data-dp-embed><iframe src="https://codepen.io/team/embed/${i}" loading="lazy" title="Pen ${i}"></iframe></div>\n\n` +
  `<div class="dp-gif" data-gif="${U[1]}"><video src="/api/media/${U[1]}" autoplay loop muted playsinline></video></div>\n\n` +
  `<a class="dp-link-card" href="https://example.com/card/${i}"><div class="dp-link-card__body"><div class="dp-link-card__title">Card ${i}</div><div class="dp-link-card__desc">What it is about</div><div class="dp-link-card__domain"><img class="dp-link-card__favicon" src="/api/media/${U[0]}" alt="" width="16" height="16"><span class="dp-link-card__domain-label">example.com</span></div></div><div class="dp-link-card__media" style="background-image:url(/api/media/${U[1]})" role="presentation"></div></a>\n\n` +
  `<details><summary>Spoiler ${i}</summary>\n\nHidden *text* ${i}.\n\n</details>\n\n` +
  `Some prose between islands, number ${i}.\n\n`;

/** The corpus articles one after another (then again), as a long document made of real ones. */
function corpusConcatenated(bytes: number): string {
  const docs = articles().map((a) => `${a.markdown.replace(/\r\n?/g, '\n').trimEnd()}\n\n`);
  return repeatBlocks(bytes, (i) => docs[(i - 1) % docs.length]!);
}

export const DOCUMENT_SHAPES: Record<string, (bytes: number) => string> = {
  prose: (n) => repeatBlocks(n, prose),
  'GFM tables': (n) => repeatBlocks(n, table),
  'nested lists': (n) => repeatBlocks(n, list),
  'code blocks': (n) => repeatBlocks(n, code),
  images: (n) => repeatBlocks(n, images),
  islands: (n) => repeatBlocks(n, islands),
  'corpus concatenated': corpusConcatenated,
};
