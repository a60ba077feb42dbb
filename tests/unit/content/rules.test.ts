/** Article body format (docs/api.md "Article body"): one test group per Markdown rule. */
import { describe, expect, it } from 'vitest';
import { ContentRejectedError } from '../../../server/content';
import { body, html, render } from './render';

describe('H1 rule (exactly one H1)', () => {
  it('inserts an H1 made from the title first when the Markdown has none', () => {
    expect(html('Hello', { title: 'My <title> & co' })).toBe('<h1>My &#x3C;title> &#x26; co</h1>\n<p>Hello</p>');
  });
  it('keeps a single H1 where it stands and does not duplicate the title', () => {
    expect(html('Intro\n\n# Heading\n\nText')).toBe('<p>Intro</p>\n<h1>Heading</h1>\n<p>Text</p>');
  });
  it('keeps the first of several H1s and turns the others into H2', () => {
    expect(html('# A\n\ntext\n\n# B\n\n## C\n\n# D')).toBe(
      '<h1>A</h1>\n<p>text</p>\n<h2>B</h2>\n<h2>C</h2>\n<h2>D</h2>',
    );
  });
  it('counts raw HTML h1 islands too', () => {
    expect(html('<h1>Raw</h1>\n\n# Md')).toBe('<h1>Raw</h1>\n<h2>Md</h2>');
  });
});

describe('headings, paragraphs and inline formatting', () => {
  it('gives h2 to h6 for ## to ######', () => {
    expect(body('## 2\n### 3\n#### 4\n##### 5\n###### 6')).toBe(
      '<h2>2</h2>\n<h3>3</h3>\n<h4>4</h4>\n<h5>5</h5>\n<h6>6</h6>',
    );
  });
  it('nests and combines bold, italic, strikethrough and inline code', () => {
    expect(body('**bold *it ~~del `code`~~* end** _x_')).toBe(
      '<p><strong>bold <em>it <del>del <code>code</code></del></em> end</strong> <em>x</em></p>',
    );
  });
  it('keeps a soft line break inside a paragraph', () => {
    expect(body('one\ntwo')).toBe('<p>one\ntwo</p>');
  });
});

describe('links (absolute http/https only)', () => {
  it('keeps absolute http and https links in canonical form', () => {
    expect(body('[a](https://Example.com) [b](http://x.org/p?q=1&r=2)')).toBe(
      '<p><a href="https://example.com/">a</a> <a href="http://x.org/p?q=1&#x26;r=2">b</a></p>',
    );
  });
  it.each([
    ['relative', '[t](/path)'],
    ['fragment', '[t](#x)'],
    ['mailto', '[t](mailto:a@b.c)'],
    ['javascript', '[t](javascript:alert(1))'],
    ['mixed-case javascript', '<a href="JaVaScRiPt:alert(1)">t</a>'],
    ['entity-encoded javascript', '<a href="&#106;avascript:alert(1)">t</a>'],
    ['javascript with a tab', '<a href="java\tscript:alert(1)">t</a>'],
    ['javascript with a leading control character', '<a href="\x01javascript:alert(1)">t</a>'],
    ['data URL', '<a href="data:text/html,x">t</a>'],
    ['vbscript', '<a href="vbscript:msgbox(1)">t</a>'],
  ])('unwraps a %s link to its text', (_kind, markdown) => {
    expect(body(markdown)).toBe('<p>t</p>');
  });
  it('normalizes protocol-relative links to https', () => {
    expect(body('<a href="//cdn.example.com/x">t</a>')).toBe('<p><a href="https://cdn.example.com/x">t</a></p>');
  });
  it('drops target, rel, title and handlers from ordinary links', () => {
    expect(body('<a href="https://e.com" target="_blank" rel="x" title="t" onclick="alert(1)">t</a>')).toBe(
      '<p><a href="https://e.com/">t</a></p>',
    );
  });
});

describe('lists, blockquotes, code, rules', () => {
  it('nests unordered lists', () => {
    expect(body('- a\n  - b\n    - c\n- d')).toBe(
      '<ul>\n<li>a\n<ul>\n<li>b\n<ul>\n<li>c</li>\n</ul>\n</li>\n</ul>\n</li>\n<li>d</li>\n</ul>',
    );
  });
  it('writes ordered lists as plain <ol> whatever the starting number', () => {
    expect(body('7. a\n8. b')).toBe('<ol>\n<li>a</li>\n<li>b</li>\n</ol>');
    expect(body('<ol start="3" type="i" reversed><li>x</li></ol>')).toBe('<ol><li>x</li></ol>');
  });
  it('keeps several paragraphs in a blockquote', () => {
    expect(body('> one\n>\n> two')).toBe('<blockquote>\n<p>one</p>\n<p>two</p>\n</blockquote>');
  });
  it('keeps the fence language as class language-<lang>', () => {
    expect(body('```ts\nlet a = 1;\n```')).toBe('<pre><code class="language-ts">let a = 1;\n</code></pre>');
    expect(body('```\nplain\n```')).toBe('<pre><code>plain\n</code></pre>');
  });
  it('keeps only language-<identifier> classes on code', () => {
    expect(body('<pre><code class="language-x onerror=1 other">c</code></pre>')).toBe(
      '<pre><code class="language-x">c</code></pre>',
    );
    expect(body('<pre><code class="language-a&quot;b lang-js">c</code></pre>')).toBe('<pre><code>c</code></pre>');
  });
  it('writes blank lines inside code as &#10; so the output stays one HTML block', () => {
    expect(body('```\na\n\n\nb\n```')).toBe('<pre><code>a&#10;&#10;\nb\n</code></pre>');
  });
  it('gives <hr> for ---', () => {
    expect(body('a\n\n---\n\nb')).toBe('<p>a</p>\n<hr>\n<p>b</p>');
  });
});

describe('images', () => {
  const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
  it('keeps alt and reports external images in order, deduped', () => {
    const out = render('![one](https://a.com/1.png) ![two](http://b.com/2.png) ![again](https://a.com/1.png)');
    expect(out.html).toContain('<img src="https://a.com/1.png" alt="one">');
    expect(out.externalImages).toEqual(['https://a.com/1.png', 'http://b.com/2.png']);
  });
  it('normalizes protocol-relative image URLs to https', () => {
    expect(render('![x](//cdn.example.com/x.png)').externalImages).toEqual(['https://cdn.example.com/x.png']);
  });
  it('substitutes rehosted URLs and stops reporting them', () => {
    const out = render('![a](https://a.com/1.png) ![b](//b.com/2.png) ![c](https://c.com/3.png)', {
      rehosted: { 'https://a.com/1.png': `/api/media/${uuid}`, '//b.com/2.png': `/api/media/${uuid}` },
    });
    expect(out.html).toBe(
      `<h1>The title</h1>\n<p><img src="/api/media/${uuid}" alt="a"> <img src="/api/media/${uuid}" alt="b"> <img src="https://c.com/3.png" alt="c"></p>`,
    );
    expect(out.externalImages).toEqual(['https://c.com/3.png']);
  });
  it('keeps IPv6 literal hosts: the image stays and is reported (the brackets survive Markdown escaping)', () => {
    const out = render(
      '![a](http://[::1]:9/x.png) ![c](http://[2001:db8::1]/z.png) <img src="https://[2001:db8::2]/h.png">',
    );
    expect(out.externalImages).toEqual([
      'http://[::1]:9/x.png',
      'http://[2001:db8::1]/z.png',
      'https://[2001:db8::2]/h.png',
    ]);
    expect(out.html).toContain('<img src="http://[::1]:9/x.png" alt="a">');
    expect(out.html).toContain('<img src="http://[2001:db8::1]/z.png" alt="c">');
    const stored = render('![a](http://[::1]:9/x.png)', { rehosted: { 'http://[::1]:9/x.png': `/api/media/${uuid}` } });
    expect(stored.html).toContain(`<img src="/api/media/${uuid}" alt="a">`);
  });
  it('tells how the author wrote each external image URL (writtenAs), for rehost_failed', () => {
    const out = render(
      '![a](//cdn.example.com/x.png) ![b](https://cdn.example.com/x.png) ![c][ref] ![d](http://Example.com/ä.png)\n\n[ref]: http://[::1]/r.png',
    );
    expect(out.externalImages).toEqual([
      'https://cdn.example.com/x.png',
      'http://[::1]/r.png',
      'http://example.com/%C3%A4.png',
    ]);
    expect(out.writtenAs).toEqual({
      'https://cdn.example.com/x.png': ['//cdn.example.com/x.png', 'https://cdn.example.com/x.png'],
      'http://[::1]/r.png': ['http://[::1]/r.png'],
      'http://example.com/%C3%A4.png': ['http://Example.com/ä.png'],
    });
  });
  it('keeps local media paths and does not report them', () => {
    const out = render(`![l](/api/media/${uuid})`);
    expect(out.html).toContain(`<img src="/api/media/${uuid}" alt="l">`);
    expect(out.externalImages).toEqual([]);
  });
  it('drops images whose source cannot be served (relative, javascript:, data:)', () => {
    expect(body('x ![a](rel.png) ![b](javascript:alert(1)) <img src="data:image/png;base64,AAAA">')).toBe(
      '<p>x   </p>',
    );
  });
  it('reports images inside figures and galleries', () => {
    const out = render(
      '<figure class="dp-gallery"><div class="dp-gallery__items"><figure class="dp-figure"><img src="https://g.com/1.png"></figure></div></figure>',
    );
    expect(out.externalImages).toEqual(['https://g.com/1.png']);
  });
});

describe('tables (no thead: the header row is the first row of tbody)', () => {
  it('moves the header row into tbody and drops alignment attributes', () => {
    expect(body('| a | b |\n| :- | -: |\n| 1 | 2 |')).toBe(
      '<table><tbody><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></tbody></table>',
    );
  });
  it('rebuilds raw HTML tables and drops what is not a row or a cell', () => {
    // The HTML parser itself moves the stray text out of the table (foster parenting).
    expect(
      body(
        '<table><caption>c</caption><thead><tr><th>h</th></tr></thead><tr><td>1</td>junk</tr><tfoot><tr><td>f</td></tr></tfoot></table>',
      ),
    ).toBe('<p>junk</p>\n<table><tbody><tr><th>h</th></tr><tr><td>1</td></tr><tr><td>f</td></tr></tbody></table>');
  });
});

describe('empty documents', () => {
  it.each([
    ['nothing', ''],
    ['whitespace', '  \n\n\t'],
    ['only a script', '<script>alert(1)</script>'],
    ['only a comment', '<!-- hi -->'],
    ['only removed markup', '<style>p{}</style><iframe src="https://evil.com"></iframe>'],
  ])('refuses %s with a 400-ready message', (_kind, markdown) => {
    expect(() => render(markdown)).toThrow(ContentRejectedError);
    expect(() => render(markdown)).toThrow('markdown: document is empty after conversion');
  });
  it('accepts a document that is only an image or a rule', () => {
    expect(body('![x](https://a.com/x.png)')).toBe('<p><img src="https://a.com/x.png" alt="x"></p>');
    expect(body('---')).toBe('<hr>');
  });
});

describe('sanitization', () => {
  it.each(['script', 'style', 'textarea', 'title', 'noscript', 'template', 'xmp', 'noembed', 'noframes', 'select'])(
    'drops <%s> together with its content',
    (tag) => {
      expect(body(`<div>keep<${tag}>secret</${tag}></div>`)).toBe('<div>keep</div>');
    },
  );
  it('unwraps unknown elements and keeps their text', () => {
    expect(body('<marquee>moving <blink>text</blink></marquee>')).toBe('<p>moving text</p>');
  });
  it('removes id, name, class, style and event handlers from ordinary elements', () => {
    expect(body('<p id="x" name="y" class="c" style="color:red" onmouseover="alert(1)">t</p>')).toBe('<p>t</p>');
  });
  it('removes island attributes from elements that are not valid islands', () => {
    expect(
      body(
        '<div class="dp-gallery__items dp-link-card__title" data-provider="youtube" data-source="embed" data-gif="0f8fad5b-d9cb-469f-a165-70867728950e" style="background-image:url(/api/media/0f8fad5b-d9cb-469f-a165-70867728950e)" role="presentation">x</div>',
      ),
    ).toBe('<div>x</div>');
    expect(
      body(
        '<span class="dp-link-card__domain-label">s</span> <img class="dp-link-card__favicon" src="https://e.com/f.ico">',
      ),
    ).toBe('<p><span>s</span> <img src="https://e.com/f.ico"></p>');
  });
});
