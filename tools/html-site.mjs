// The HTML edition's site: tex4ht's pages of the prose, with noweb's HTML of the code put where
// each chunk stands, the figures' SVGs, and links that cross pages.
//
//   node tools/html-site.mjs BUILD OUT
//
// BUILD holds tex4ht's output (attention.html, attentionchN.html, attentionapN.html,
// attentionliN.html, attention.css), codes.html (noweb's tohtml of the whole book, whose K-th
// <pre> is chunk K, followed by the chunk and identifier indexes), figures/ (NAME.svg, and list:
// one line "K NAME" per figure) and numbers.tex (the book's numbers).  OUT receives the site:
// index.html (title and contents), a page per chapter, appendix and index named by its slug,
// figures/, sources/ (each figure's script and data), style.css, book.js, chunks.js,
// search.js, and a copy of the PDF (attention.pdf, found at the top).  Bad input: one line on
// stderr, exit 2; OUT is written through OUT.tmp and moved into place at the end.
import fs from 'node:fs';
import path from 'node:path';

function fail(message) {
  process.stderr.write(`html-site: ${message}\n`);
  process.exit(2);
}

if (process.argv.length !== 4) fail('usage: node tools/html-site.mjs BUILD OUT');
const [build, out] = process.argv.slice(2);
const staging = `${out}.tmp`;
const read = (file) => {
  try { return fs.readFileSync(file, 'utf8'); } catch { return fail(`cannot read ${file}`); }
};

const escapeHtml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  .replace(/"/g, '&quot;');
const textOf = (html) => html.replace(/<!--[\s\S]*?-->/g, '').replace(/<[^>]*>/g, '')
  .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&')
  .replace(/\s+/g, ' ').trim();
// tex4ht writes the T1 fonts' ligatures as the Unicode ligature characters; the text keeps
// the letters, so that it can be searched and copied.
const LIGATURES = { 'ﬀ': 'ff', 'ﬁ': 'fi', 'ﬂ': 'fl', 'ﬃ': 'ffi', 'ﬄ': 'ffl' };
const unligature = (html) => html.replace(/[ﬀﬁﬂﬃﬄ]/g, (c) => LIGATURES[c]);

// ---------------------------------------------------------------- the book's numbers
function readNumbers(file) {
  const numbers = {};
  for (const m of read(file).matchAll(/^\\newcommand\{\\(\w+)\}\{(.*)\}$/gm))
    numbers[m[1]] = m[2].replace(/\{,\}/g, ',');
  return numbers;
}

// ---------------------------------------------------------------- the chunks, from tohtml
const CHUNK_PATTERN = /<pre><a name="([^"]+)" href="#[^"]*"><dfn>&lt;([\s\S]*?)&gt;(\+?)=<\/dfn><\/a>([^\n]*)\n([\s\S]*?)<\/pre>(?:<blockquote>([\s\S]*?)<\/blockquote>)?/g;

function readChunks(codes) {
  const chunks = [];
  for (const m of codes.matchAll(CHUNK_PATTERN)) {
    const [, id, name, plus, , body, footer] = m;
    const defines = [...(footer || '').matchAll(/<a href="#(NWI-[^"]+)"><code>([\s\S]*?)<\/code><\/a>/g)]
      .map((d) => ({ anchor: d[1], name: d[2] }));
    chunks.push({ id, name, continued: plus === '+', body, defines });
  }
  const tail = codes.slice(codes.lastIndexOf('</pre>'));
  const lists = [...tail.matchAll(/<ul>([\s\S]*?)<\/ul>/g)].map((m) => m[1]);
  if (lists.length < 2) fail('codes.html has no chunk and identifier indexes at its end');
  return { chunks, identifierList: lists[1] };
}

// A chunk's uses of other chunks are links named CHUNK-uN to the used chunk's first definition.
function linkChunks(chunks) {
  const byId = new Map(chunks.map((c) => [c.id, c]));
  const usedIn = new Map();
  for (const c of chunks)
    for (const m of c.body.matchAll(/<a name="[^"]+-u\d+" href="#([^"]+)">/g)) {
      const target = byId.get(m[1]);
      if (!target) continue;
      const list = usedIn.get(target.name) || [];
      if (!list.includes(c)) list.push(c);
      usedIn.set(target.name, list);
    }
  const ofName = new Map();
  for (const c of chunks) ofName.set(c.name, [...(ofName.get(c.name) || []), c]);
  for (const c of chunks) {
    const same = ofName.get(c.name);
    const at = same.indexOf(c);
    c.previous = same[at - 1];
    c.next = same[at + 1];
    c.first = same[0];
    c.usedIn = usedIn.get(c.name) || [];
  }
  return byId;
}

// A chunk's name may hold a little TeX math ($e^r$, $2^k$): letters in italics, ^ and _ as
// superscript and subscript.
const chunkName = (name) => name.replace(/\$([^$]*)\$/g, (all, math) => math
  .replace(/([A-Za-z])/g, '<i>$1</i>')
  .replace(/\^(<i>.<\/i>|\w)/g, '<sup>$1</sup>').replace(/_(<i>.<\/i>|\w)/g, '<sub>$1</sub>'));
const chunkTitle = (name) => `⟨${chunkName(name)}⟩`;

function chunkLink(c, text = chunkTitle(c.name)) {
  return `<a class="chunkref" href="#${c.id}">${text}</a>${c.label ? ` <span class="chunk-label">${c.label}</span>` : ''}`;
}

function chunkHtml(c) {
  const body = c.body
    .replace(/<a name="([^"]+)" href="#([^"]+)"><i>&lt;([\s\S]*?)&gt;<\/i><\/a>/g,
      (all, id, to, name) => `<a id="${id}" class="chunkref" href="#${to}">${chunkTitle(name)}</a>`);
  const notes = [];
  if (c.usedIn.length) notes.push(`Used in ${c.usedIn.map((u) => chunkLink(u)).join(', ')}.`);
  else if (!c.continued) notes.push('A file of its own, or a root: no chunk uses it.');
  if (c.previous || c.next) {
    const parts = [];
    if (c.previous) parts.push(`continues ${chunkLink(c.previous, 'the previous definition')}`);
    if (c.next) parts.push(`is continued in ${chunkLink(c.next, 'the next')}`);
    notes.push(`This chunk ${parts.join(' and ')}.`);
  }
  if (c.defines.length)
    notes.push(`Defines ${c.defines.map((d) => `<a href="identifiers.html#${d.anchor}"><code>${d.name}</code></a>`).join(', ')}.`);
  return `<div class="chunk" id="${c.id}">
<div class="chunk-head"><a class="chunk-name" href="#${c.first.id}">${chunkTitle(c.name)}${c.continued ? '+≡' : '≡'}</a>${c.label ? ` <span class="chunk-label">${c.label}</span>` : ''}</div>
<pre class="code">${body}</pre>
<div class="chunk-foot">${notes.join(' ')}</div>
</div>`;
}

// ---------------------------------------------------------------- tex4ht's pages
function bookSlugs() {
  const files = fs.readdirSync('book').filter((f) => /^(\d\d|A\d)-.*\.nw$/.test(f));
  const order = (f) => (/^\d/.test(f) ? '0' : '1') + f;
  files.sort((a, b) => order(a).localeCompare(order(b)));
  const slug = (f) => f.replace(/^(\d\d|A\d)-/, '').replace(/\.nw$/, '');
  return {
    chapters: files.filter((f) => /^\d/.test(f)).map(slug),
    appendices: files.filter((f) => /^A/.test(f)).map(slug),
  };
}

const SPECIAL_PAGES = [
  [/^Contents$/, 'contents'],
  [/^Solutions to the questions$/, 'solutions'],
  [/^Index of subjects$/, 'subjects'],
  [/^Index of chunks$/, 'chunks'],
  [/^Index of identifiers$/, 'identifiers'],
  [/^Bibliography$/, 'bibliography'],
];

function pageTitle(html) {
  const m = html.match(/<h2 class="(?:likechapterHead|chapterHead|appendixHead)"[^>]*>([\s\S]*?)<\/h2>/);
  if (!m) return null;
  const mark = (m[1].match(/<span class="titlemark">([\s\S]*?)<\/span>/) || [, ''])[1];
  const title = textOf(m[1].replace(/<span class="titlemark">[\s\S]*?<\/span>/, ''));
  return { mark: textOf(mark), title: unligature(title) };
}

function readPages(slugs) {
  const names = fs.readdirSync(build).filter((f) => /^attention(ch|ap|li)?\d*\.html$/.test(f));
  let pages = [];
  let preface = true;
  for (const source of names) {
    const html = unligature(read(path.join(build, source)));
    if (source === 'attention.html') { pages.push({ source, name: 'index.html', title: 'Attention from Scratch', html }); continue; }
    const heading = pageTitle(html);
    if (!heading) fail(`${source} has no chapter heading`);
    let slug = null;
    let m;
    // A chapter or an appendix of book/ has its file's slug; the solutions, the indexes and
    // the bibliography are named by their titles.
    if ((m = heading.mark.match(/^Chapter (\d+)$/))) slug = slugs.chapters[Number(m[1]) - 1];
    else if ((m = heading.mark.match(/^Appendix ([A-Z])$/))) slug = slugs.appendices[m[1].charCodeAt(0) - 65];
    slug = slug || (SPECIAL_PAGES.find(([re]) => re.test(heading.title)) || [])[1];
    if (!slug && source.startsWith('attentionch') && preface) slug = 'preface';
    if (!slug) fail(`${source}: no page name for "${heading.mark} ${heading.title}"`);
    if (slug === 'preface') preface = false;
    pages.push({ source, name: `${slug}.html`, mark: heading.mark, title: heading.title, html });
  }
  // tex4ht links each page after the title page to the next one; the reading order follows
  // those links from the one page no link leads to.
  const nextOf = new Map(pages.map((p) => [p.source, (p.html.match(/href="([^"#]+)"\s*>next<\/a>/) || [])[1]]));
  const bySource = new Map(pages.map((p) => [p.source, p]));
  const hasPrevious = new Set(nextOf.values());
  const ordered = [bySource.get('attention.html')];
  let at = pages.find((p) => p.source !== 'attention.html' && !hasPrevious.has(p.source));
  while (at && !ordered.includes(at)) { ordered.push(at); at = bySource.get(nextOf.get(at.source)); }
  // The bibliography, last, has no link to it.
  ordered.push(...pages.filter((p) => !ordered.includes(p)));
  pages = ordered;
  return pages;
}

// ---------------------------------------------------------------- per page
function sectionLabels(html) {
  const marks = [];
  for (const m of html.matchAll(/<h([2-4]) class="[^"]*Head"[^>]*>(?:<span class="titlemark">([\s\S]*?)<\/span>)?/g)) {
    const mark = textOf(m[2] || '').replace(/^Chapter |^Appendix /, '');
    marks.push({ at: m.index, mark });
  }
  return (at) => {
    let label = '';
    for (const s of marks) if (s.at <= at && s.mark) label = s.mark; else if (s.at > at) break;
    return label ? `§${label}` : '';
  };
}

function placeChunks(page, chunks) {
  const labelAt = sectionLabels(page.html);
  for (const m of page.html.matchAll(/<!--chunk (\d+)-->/g)) {
    const c = chunks[Number(m[1]) - 1];
    if (!c) fail(`${page.source}: chunk ${m[1]} is not in codes.html`);
    c.page = page.name;
    c.label = labelAt(m.index);
  }
}

function fillChunks(page, chunks) {
  page.html = page.html.replace(/(?:<p class="noindent"\s*>\s*)?<!--chunk (\d+)-->/g,
    (all, k) => chunkHtml(chunks[Number(k) - 1]));
}

// An inline formula of this many characters or more may be wider than a phone's screen: it
// scrolls in a box of its own.
const WIDE_MATH = 28;

// A page reference prints the number of the section, figure or exercise it points to; on the
// web there are no pages, so the word before it names what it points to.
const REFERENCE_WORDS = [[/^fig:/, 'figure'], [/^tab:/, 'table'], [/^ex:|^solution-/, 'exercise'], [/^eq:/, 'equation'], [/./, 'section']];
function pageReferences(html) {
  return html.replace(/\bpages?((?:\s|&nbsp;|~|\u00a0)+)(<a\s[^>]*>[^<]*<!--tex4ht:ref: ([^ ]+) -->)/g,
    (all, space, link, label) => `${REFERENCE_WORDS.find(([re]) => re.test(label))[1]}${space}${link}`);
}

function figures(html, list, sourcesOf) {
  return html.replace(/<figure class="figure">([\s\S]*?)<\/figure>/g, (all, inner) => {
    const caption = (inner.match(/<figcaption[\s\S]*?<\/figcaption>/) || [''])[0];
    const alt = escapeHtml(textOf(caption.replace(/<span class="id">[\s\S]*?<\/span>/, '')));
    const withAlt = inner.replace(/<img class="figure-image" src="figures\/([^"]+)\.svg" alt="" \/>/g,
      (img, name) => {
        if (!list.has(name)) fail(`figure ${name} has no SVG`);
        const sources = sourcesOf(name).map((s) => `<a href="sources/${s}">${path.basename(s)}</a>`).join(', ');
        return `<a href="figures/${name}.svg"><img class="figure-image" src="figures/${name}.svg" alt="${alt}" /></a>`
          + (sources ? `<span class="figure-sources">Drawn from ${sources}.</span>` : '');
      });
    return `<figure class="figure">${withAlt}</figure>`;
  });
}

// ---------------------------------------------------------------- links across pages
function collectAnchors(pages) {
  const where = new Map();
  for (const p of pages)
    for (const m of p.html.matchAll(/\s(?:id|name)="([^"]+)"/g)) if (!where.has(m[1])) where.set(m[1], p.name);
  return where;
}

function relink(html, here, where, renamed) {
  return html
    .replace(/href="#noweb\.([^"]+)"/g, 'href="#$1"')
    .replace(/<a name="/g, '<a id="')
    .replace(/href="(attention(?:ch|ap|li)?\d*\.html)(#[^"]*)?"/g, (all, file, hash = '') => {
      const target = renamed.get(file);
      if (!target) return all;
      return `href="${target}${hash === `#${file}` ? '' : hash}"`;
    })
    .replace(/href="#([^"]+)"/g, (all, id) => {
      const page = where.get(id);
      return page && page !== here ? `href="${page}#${id}"` : all;
    });
}

// ---------------------------------------------------------------- the frame of every page
function frame(page, index, pages, machine, body) {
  const previous = pages[index - 1];
  const next = pages[index + 1];
  const nav = `<nav class="book-nav">${previous ? `<a rel="prev" href="${previous.name}">← ${escapeHtml(short(previous))}</a>` : '<span></span>'}`
    + `<a href="index.html">Contents</a>`
    + `${next ? `<a rel="next" href="${next.name}">${escapeHtml(short(next))} →</a>` : '<span></span>'}</nav>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width,initial-scale=1" />
<title>${escapeHtml(page.mark ? `${page.mark}: ${page.title}` : page.title)} · Attention from Scratch</title>
<link rel="stylesheet" href="attention.css" />
<link rel="stylesheet" href="style.css" />
<script src="book.js" defer></script>
</head>
<body>
<header class="book-bar">
<a class="book-title" href="index.html">Attention from Scratch</a>
<span class="book-links"><a href="attention.pdf">PDF</a> <a href="subjects.html">Index</a> <a href="chunks.html">Chunks</a> <a href="identifiers.html">Identifiers</a></span>
<span class="book-machine">Numbers measured on ${escapeHtml(machine)}</span>
</header>
${nav}
<main>
${body}
</main>
${nav}
</body>
</html>
`;
}

const short = (p) => (p.mark ? p.mark : p.title);

function bodyOf(html) {
  const m = html.match(/<body[^>]*>([\s\S]*)<\/body>/);
  if (!m) fail('a page has no body');
  return m[1]
    .replace(/<div class="crosslinks">[\s\S]*?<\/div>/g, '')
    .replace(/<a id="tail[^"]*"><\/a>/g, '');
}

// ---------------------------------------------------------------- the indexes of code
// Links to chunks by the sections they stand in, one link for each section.
function sectionLinks(chunks) {
  const seen = new Set();
  return chunks.filter((c) => !seen.has(c.label || c.page) && seen.add(c.label || c.page))
    .map((c) => `<a href="${c.page}#${c.id}">${c.label || c.page}</a>`).join(', ');
}

function chunkIndex(chunks) {
  const byName = new Map();
  for (const c of chunks) byName.set(c.name, [...(byName.get(c.name) || []), c]);
  const names = [...byName.keys()].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  const items = names.map((name) => {
    const defs = byName.get(name);
    const first = defs[0];
    const where = sectionLinks(defs);
    const uses = sectionLinks(first.usedIn);
    return `<li><a class="chunkref" href="${first.page}#${first.id}">${chunkTitle(name)}</a>: defined in ${where}${uses ? `; used in ${uses}` : ''}</li>`;
  });
  return `<p>Every chunk of the book by name, with the sections where it is defined and those of the chunks that use it.</p>\n<ul class="code-index">\n${items.join('\n')}\n</ul>`;
}

function identifierIndex(list, byId) {
  const chunksOf = (ids) => ids.map((id) => byId.get(id)).filter(Boolean);
  const items = [...list.matchAll(/<li><a name="(NWI-[^"]+)" href="#([^"]+)">([\s\S]*?)<\/a>:([^\n]*)/g)]
    .map(([, anchor, , name, refs]) => {
      const defs = []; const uses = [];
      for (const r of refs.matchAll(/<a href="#([^"]+)">([DU])\d+<\/a>/g)) (r[2] === 'D' ? defs : uses).push(r[1]);
      const usedIn = sectionLinks(chunksOf(uses));
      return `<li id="${anchor}"><code>${name}</code>: defined in ${sectionLinks(chunksOf(defs))}${usedIn ? `; used in ${usedIn}` : ''}</li>`;
    });
  return `<p>Every C identifier the book defines, with the sections of the chunks that define it and of those that use it.</p>\n<ul class="code-index">\n${items.join('\n')}\n</ul>`;
}

function replaceIndexBody(page, content) {
  page.html = page.html.replace(/(<\/h2>)[\s\S]*(<\/body>)/, (all, h2end, bodyEnd) => `${h2end}\n${content}\n${bodyEnd}`);
}

// ---------------------------------------------------------------- subject index labels
function subjectLabels(page, pages) {
  const labelsOf = new Map(pages.map((p) => [p.name, sectionLabels(p.html)]));
  // A link's number is tex4ht's count of the index's places; a defining place's is in bold.
  page.html = page.html.replace(/<a\s+href="([^"#]+)#([^"]+)"\s*>(<span[^>]*>)?\s*(\d+)\s*(<\/span>)?<\/a>/g,
    (all, file, id, bold) => {
      const target = pages.find((p) => p.name === file);
      if (!target) return all;
      const at = target.html.search(new RegExp(`(?:id|name)="${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`));
      const label = (at >= 0 && labelsOf.get(file)(at)) || target.mark || target.title;
      return `<a href="${file}#${id}">${bold ? `<strong>${label}</strong>` : label}</a>`;
    });
}

// ---------------------------------------------------------------- search
function searchEntries(pages) {
  const entries = [];
  for (const p of pages) {
    for (const m of p.html.matchAll(/<h([2-4]) class="[^"]*Head"[^>]*>([\s\S]*?)<\/h\1>/g)) {
      const id = (m[2].match(/id="([^"]+)"/) || [])[1];
      const text = textOf(m[2]);
      if (text) entries.push({ text, href: id && m[1] !== '2' ? `${p.name}#${id}` : p.name, kind: 'heading' });
    }
  }
  const subjects = pages.find((p) => p.name === 'subjects.html');
  let item = '';
  if (subjects)
    for (const m of subjects.html.matchAll(/<span class="index-(item|subitem)">([\s\S]*?)<br \/>/g)) {
      const first = m[2].match(/href="([^"]+)"/);
      const text = textOf(m[2].replace(/<a[\s\S]*?<\/a>/g, '')).replace(/[, ]+$/, '');
      if (m[1] === 'item') item = text;
      const entry = m[1] === 'item' ? text : `${item}, ${text}`;
      if (first && text) entries.push({ text: entry, href: first[1], kind: 'subject' });
    }
  return entries;
}

// ---------------------------------------------------------------- sources of the figures
// A gnuplot figure's sources are its script, the files of figures/ it loads, and the data
// files it reads (style.gpi's data('NAME'), or a loaded file's data(dataset) with dataset =
// 'NAME', is generated/data/NAME.dat); a figure drawn in TeX (TikZ, or a program's table) is
// its page of TeX, copied from the build.
function figureSources(name) {
  const script = path.join('figures', `${name}.gp`);
  if (!fs.existsSync(script)) return [`figures/${name}.tex`];
  const text = read(script);
  const loaded = [...text.matchAll(/^load '(figures\/[\w.\-]+)'/gm)].map((m) => m[1]);
  const data = [...new Set([...text.matchAll(/(?:data\(|dataset = )'([\w.\-]+)'/g)]
    .map((m) => `generated/data/${m[1]}.dat`))].filter((f) => fs.existsSync(f));
  return [script, ...loaded, ...data].map((f) => f.replace(/^generated\//, ''));
}

function copySources(list) {
  for (const name of list) for (const s of figureSources(name)) {
    const from = [s, path.join('generated', s), path.join(build, s)].find((f) => fs.existsSync(f));
    if (!from) fail(`the source ${s} of figure ${name} is missing`);
    const to = path.join(staging, 'sources', s);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
  }
}

// ---------------------------------------------------------------- main
function main() {
  const numbers = readNumbers(path.join(build, 'numbers.tex'));
  const machine = [numbers.costCpu, numbers.costCores && `${numbers.costCores} cores`, numbers.costVectorIsa]
    .filter(Boolean).join(', ');
  const { chunks, identifierList } = readChunks(read(path.join(build, 'codes.html')));
  const byId = linkChunks(chunks);
  const figureList = new Set(read(path.join(build, 'figures', 'list')).split('\n').filter(Boolean)
    .map((l) => l.split(' ')[1]));

  const pages = readPages(bookSlugs());
  const renamed = new Map(pages.map((p) => [p.source, p.name]));
  const contents = pages.find((p) => p.name === 'contents.html');
  if (contents) {
    renamed.set(contents.source, 'index.html');
    pages.splice(pages.indexOf(contents), 1);
    const index = pages.find((p) => p.name === 'index.html');
    // The contents list themselves, and tex4ht gives the chapters of the back matter the letter
    // of the last appendix: both are left out.
    const toc = bodyOf(contents.html).replace(/<span class="likechapterToc"\s*><a\s[^>]*>Contents<\/a><\/span>\s*<br \/>/, '')
      .replace(/(<span class="appendixToc"\s*>)[A-Z] (<a\s[^>]*>Index of)/g, '$1$2');
    index.html = index.html.replace(/<\/body>/, `<div class="search"><label for="search">Search the headings and the subject index:</label> <input id="search" type="search" autocomplete="off" /><ul id="search-results"></ul></div>\n${toc}</body>`);
  }

  for (const p of pages) placeChunks(p, chunks);
  const unplaced = chunks.filter((c) => !c.page);
  if (unplaced.length) fail(`${unplaced.length} chunks have no place in the pages (first: ${unplaced[0].name})`);
  for (const p of pages) {
    fillChunks(p, chunks);
    p.html = figures(pageReferences(p.html), figureList, figureSources)
      .replace(/<!--l\. \d+--><math\s[^>]*>\s*<\/math>/g, '')
      // tex4ht writes \left( as <mo> (</mo>: an operator of two characters, which the browser
      // does not stretch.
      .replace(/<mo([^>]*)>\s+([^<\s]*)\s*<\/mo>/g, '<mo$1>$2</mo>')
      .replace(/<math\s[^>]*display="inline"[^>]*>[\s\S]*?<\/math>/g,
        (math) => (textOf(math).replace(/\s/g, '').length >= WIDE_MATH ? `<span class="wide-math">${math}</span>` : math));
  }
  const chunkPage = pages.find((p) => p.name === 'chunks.html');
  const identifierPage = pages.find((p) => p.name === 'identifiers.html');
  if (!chunkPage || !identifierPage) fail('the pages of the chunk and identifier indexes are missing');
  replaceIndexBody(chunkPage, chunkIndex(chunks));
  replaceIndexBody(identifierPage, identifierIndex(identifierList, byId));

  const where = collectAnchors(pages);
  for (const p of pages) p.html = relink(p.html, p.name, where, renamed);
  const subjects = pages.find((p) => p.name === 'subjects.html');
  if (subjects) subjectLabels(subjects, pages);

  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(path.join(staging, 'figures'), { recursive: true });
  pages.forEach((p, i) => fs.writeFileSync(path.join(staging, p.name), frame(p, i, pages, machine, bodyOf(p.html))));
  for (const name of figureList) fs.copyFileSync(path.join(build, 'figures', `${name}.svg`), path.join(staging, 'figures', `${name}.svg`));
  for (const f of fs.readdirSync(build).filter((f) => /^attention\d+x\.svg$/.test(f)))
    fs.copyFileSync(path.join(build, f), path.join(staging, f));
  copySources(figureList);
  fs.copyFileSync(path.join(build, 'attention.css'), path.join(staging, 'attention.css'));
  for (const f of ['style.css', 'book.js']) fs.copyFileSync(path.join('tools', 'html', f), path.join(staging, f));
  fs.copyFileSync('attention.pdf', path.join(staging, 'attention.pdf'));
  const chunkData = Object.fromEntries(chunks.map((c) => [c.id, relink(chunkHtml(c), null, where, renamed)]));
  fs.writeFileSync(path.join(staging, 'chunks.js'), `window.bookChunks = ${JSON.stringify(chunkData)};\n`);
  const search = JSON.stringify(searchEntries(pages));
  fs.writeFileSync(path.join(staging, 'search.json'), search);
  fs.writeFileSync(path.join(staging, 'search.js'), `window.bookSearch = ${search};\n`);
  fs.rmSync(out, { recursive: true, force: true });
  fs.renameSync(staging, out);
}

main();
