import { describe, expect, it } from 'vitest';
import { removedMarkup } from '@/server/console/removed-markup';
import { explainSave } from '@/server/console/save-report';

describe('removedMarkup', () => {
  it('names iframes from hosts off the allowlist, dropped elements and dropped attributes', () => {
    const markdown = [
      'Intro',
      '',
      '<div class="dp-embed" data-dp-embed><iframe src="https://evil.example/x"></iframe></div>',
      '',
      '<p onclick="steal()" data-x="1">Hello <marquee>there</marquee></p>',
      '',
      '<script>alert(1)</script>',
    ].join('\n');
    const stored = '<h1>T</h1>\n<p>Intro</p>\n<p>Hello there</p>';
    expect(removedMarkup(markdown, stored)).toEqual([
      { line: 3, text: 'An iframe from evil.example was removed: that host is not on the embed allowlist.' },
      {
        line: 3,
        text: '1 <div> element(s) removed (their text, if any, is kept): not an element articles may contain there.',
      },
      {
        line: 5,
        text: '1 <marquee> element(s) removed (their text, if any, is kept): not an element articles may contain there.',
      },
      { line: 5, text: 'The onclick attribute on <p> was removed: articles run no scripts.' },
      { line: 5, text: 'The data-x attribute on <p> was removed: it is not one articles keep on that element.' },
      { line: 7, text: '1 <script> element(s) removed: articles carry no scripts or styles of their own.' },
    ]);
  });

  it('names Markdown images and links whose address cannot stay, each with its line, and keeps quiet about good ones', () => {
    const markdown = [
      'Intro with [a good link](https://example.com/a) and ![a stored image](/api/media/00000000-0000-4000-8000-000000000000).',
      '',
      '![A diagram](images/diagram.png)',
      '',
      'Click [here](javascript:alert(1)) or read [the notes](notes.html), or [jump](#intro).',
      '',
      '`[code](javascript:x)` is shown, not linked.',
    ].join('\n');
    const stored =
      '<p>Intro with <a href="https://example.com/a">a good link</a> and <img src="/api/media/00000000-0000-4000-8000-000000000000" alt="a stored image">.</p><p>Click here or read the notes, or <a href="#intro">jump</a>.</p><p><code>[code](javascript:x)</code> is shown, not linked.</p>';
    const removed = removedMarkup(markdown, stored);
    expect(removed.map((r) => r.line)).toEqual([3, 5, 5]);
    expect(removed[0]!.text).toMatch(
      /^The image “A diagram” was removed: “images\/diagram\.png” is not a full address/,
    );
    expect(removed[1]!.text).toMatch(
      /^The link “here” was removed \(its text is kept\): a javascript: address runs code/,
    );
    expect(removed[2]!.text).toMatch(
      /^The link “the notes” was removed \(its text is kept\): “notes\.html” is a relative address/,
    );
  });

  it('reports nothing when the HTML survived, and ignores HTML shown inside code', () => {
    const markdown =
      'Use `<script>` carefully.\n\n```html\n<iframe src="https://evil.example/"></iframe>\n```\n\n<details><summary>S</summary>Hidden</details>';
    const stored =
      '<h1>T</h1><p>Use <code>&lt;script&gt;</code> carefully.</p><pre><code>&lt;iframe&gt;</code></pre><details><summary>S</summary>Hidden</details>';
    expect(removedMarkup(markdown, stored)).toEqual([]);
  });

  it('compares addresses after decoding character references', () => {
    const written =
      '<div class="dp-embed" data-dp-embed><iframe src="https://www.figma.com/embed?a=1&amp;b=2" title="x"></iframe></div>';
    const stored =
      '<div class="dp-embed" data-dp-embed><iframe src="https://www.figma.com/embed?a=1&#x26;b=2" title="x"></iframe></div>';
    expect(removedMarkup(written, stored)).toEqual([]);
  });

  it('keeps quiet about an allowlisted iframe that was kept', () => {
    const src = 'https://www.youtube.com/embed/abc';
    expect(
      removedMarkup(
        `<div data-video data-provider="youtube" data-source="embed"><iframe src="${src}"></iframe></div>`,
        `<div data-video data-provider="youtube" data-source="embed"><iframe src="${src}"></iframe></div>`,
      ),
    ).toEqual([]);
  });
});

describe('explainSave', () => {
  it('gives each failed image a reason and each warning an explanation', () => {
    const out = explainSave(
      ['http://a.example/1.png', 'http://a.example/cat.gif'],
      [
        'http://a.example/cat.gif: animated images are not rehosted; store it with POST /media/from-url and show it with the GIF island',
      ],
    );
    expect(out.images[0]!.reason).toMatch(/^The download failed/);
    expect(out.images[1]!.reason).toMatch(/animated.*GIF island/);
    expect(out.warnings[0]!.explanation).toMatch(/GIF island/);
  });

  it("says each image's own cause when the rehost gave one", () => {
    const urls = [
      'http://10.0.0.1/a.png',
      'https://x.example/gone.png',
      'https://x.example/notes.txt',
      'https://x.example/big.png',
      'https://x.example/slow.png',
      'https://x.example/later.png',
    ];
    const out = explainSave(urls, ['rehost stopped: media limit of 10 per minute reached; 1 image(s) not stored'], {
      [urls[0]!]: 'address not allowed',
      [urls[1]!]: 'source answered HTTP 404',
      [urls[2]!]: 'not a supported image (text)',
      [urls[3]!]: 'source file is larger than 52428800 bytes',
      [urls[4]!]: 'could not fetch the image (the source took too long)',
      [urls[5]!]: 'not stored: media limit of 10 per minute reached',
    });
    const reasons = out.images.map((i) => i.reason);
    expect(reasons[0]).toMatch(/^Its address is in a private, local or otherwise refused network/);
    expect(reasons[1]).toBe('The host answered HTTP 404 instead of the image. Check the address, then retry.');
    expect(reasons[2]).toMatch(/^It is not an image the service stores \(not a supported image \(text\)\)/);
    expect(reasons[3]).toMatch(/^The file is too large/);
    expect(reasons[4]).toMatch(/^The source took too long/);
    expect(reasons[5]).toMatch(/^Not copied: media limit of 10 per minute reached\. .*Wait a minute, then retry\.$/);
    expect(new Set(reasons).size).toBe(reasons.length);
    // Retry is offered only where trying again can succeed: never for a refused address or an unusable file.
    expect(out.images.map((i) => i.retryable)).toEqual([false, true, false, false, true, true]);
  });

  it('ties failures to a stop when copying stopped at a limit', () => {
    const out = explainSave(
      ['http://a.example/1.png'],
      ['rehost stopped: media limit of 10 per minute reached; 1 image(s) not stored'],
    );
    expect(out.warnings[0]!.explanation).toContain('10 media per minute');
    expect(out.images[0]!.reason).toContain('Wait a minute, then retry.');
  });
});
