#!/usr/bin/env node
// The browser check of the HTML edition (generated/html), in Debian's headless Chromium, driven
// through chromedriver by the W3C WebDriver protocol (Node's fetch; no npm package).  Every
// top-level page is opened as a file:// URL, once at 1280 by 800 pixels and once at 390 by 844,
// and the check groups are:
//   - every page loads with no console error and no failed request, its images load, and its
//     stylesheets and scripts are files of the site;
//   - every internal link reaches a file of the site, and its #fragment an id (or <a name>) there;
//   - no raw TeX (a backslash command or a $) in the text outside <pre> and <code>, the titles and
//     the alt texts, nor in the labels of the SVG figures (read from disk);
//   - every image has a size on the page and an alt text;
//   - every MathML <math> has a box and no <merror>;
//   - on the first page with a link to a chunk of the same page, clicking it brings the chunk into
//     the window and sets the address's fragment, and history.back() returns to where the reader was;
//   - on that page, resting the pointer on a chunk reference (of the page, and of another page)
//     shows a preview of the chunk, and typing in the search box of index.html lists links;
//   - no page scrolls sideways at either width (else the element, or the text, that reaches
//     furthest past the window's edge is named);
//   - a screenshot of each page's first screen at each width, SHOTS_DIR/PAGE-WIDTH.png.
// Scrollbars are hidden, as on a phone, so that a page has the whole width of the window.
// The console is read through chromedriver's log endpoint (POST /session/ID/se/log), which the
// session's goog:loggingPrefs turns on; a missing file shows there as "Failed to load resource".
// Usage: node tools/check-html.mjs SITE_DIR SHOTS_DIR
// Exit status: 0 when all pass; 1 with the problems, one "page: problem" a line (MAX_SHOWN at
// most), or when the browser cannot be run (one line on stderr); 2 on bad usage (one line on stderr).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CHROMEDRIVER = '/usr/bin/chromedriver';
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
  '--hide-scrollbars', '--force-device-scale-factor=1'];
const VIEWPORTS = [{ width: 1280, height: 800 }, { width: 390, height: 844 }];
const CHUNK_SELECTOR = '.chunk, pre.code';  // a chunk reference's target is, or is inside, one of these
const CODE_SELECTOR = 'pre, code, [class*="lmtt"]'; // code, and typewriter text, may hold backslashes and dollars
const RAW_TEX = /\\[A-Za-z]+|\$/g;
const EXTERNAL_LINK = /^(https?|mailto):/i;
const LOAD_TIMEOUT_MS = 10000;
const COMMAND_TIMEOUT_MS = 60000;
const SCROLL_TIMEOUT_MS = 2000;
const BACK_TOLERANCE_PX = 10;
const MAX_SHOWN = 20;
const SEARCH_PAGE = 'index.html';  // the page whose search box is tried, with SEARCH_WORDS
const SEARCH_WORDS = 'softmax';
const PREVIEW = '.chunk-preview .chunk';  // what resting on a chunk reference shows
const MAX_BROKEN_PAGES = 3;
const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';  // how WebDriver names an element

// Node 18 (Debian 12's) calls fetch experimental, on stderr, at its first use: noise in the build.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name !== 'ExperimentalWarning') console.error(warning.toString());
});

// ---- The browser ----

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// chromedriver runs in a process group of its own, with the Chromium it starts; the group is
// killed whenever this process exits, failed or not.
async function startChromedriver() {
  const port = await freePort();
  const driver = spawn(CHROMEDRIVER, [`--port=${port}`], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  driver.stderr.on('data', (chunk) => { said += chunk; });
  const killGroup = () => { try { process.kill(-driver.pid, 'SIGKILL'); } catch { /* already gone */ } };
  process.on('exit', killGroup);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => { console.error(`check-html: stopped by ${signal}`); process.exit(1); });
  }
  const url = `http://127.0.0.1:${port}`;
  for (let waited = 0; waited < 10000; waited += 50) {
    if (driver.exitCode !== null) throw new Error(`chromedriver exited: ${said.trim()}`);
    const ready = await fetch(`${url}/status`).then((r) => r.json()).then((j) => j.value.ready, () => false);
    if (ready) return url;
    await sleep(50);
  }
  throw new Error('chromedriver did not start in 10 s');
}

async function webdriver(method, url, body) {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(COMMAND_TIMEOUT_MS),
  });
  const { value } = await response.json();
  if (value && value.error) throw new Error(value.message.split('\n')[0]);
  return value;
}

// A browser session: one Chromium window, reused for every page.
async function openBrowser(driverUrl) {
  const { sessionId } = await webdriver('POST', `${driverUrl}/session`, {
    capabilities: {
      alwaysMatch: {
        browserName: 'chrome',
        pageLoadStrategy: 'eager',
        'goog:chromeOptions': { binary: CHROMIUM, args: CHROMIUM_FLAGS },
        'goog:loggingPrefs': { browser: 'ALL' },
      },
    },
  });
  const session = `${driverUrl}/session/${sessionId}`;
  const command = (method, what, body) => webdriver(method, `${session}${what}`, body);
  await command('POST', '/timeouts', { script: LOAD_TIMEOUT_MS + 5000, pageLoad: LOAD_TIMEOUT_MS });
  const browser = {
    open: (url) => command('POST', '/url', { url }),
    // fn runs in the page, with args; runAsync's fn gets a last argument to call with its result.
    run: (fn, ...args) => command('POST', '/execute/sync',
      { script: `${PAGE_HELPERS}\nreturn (${fn}).apply(null, arguments)`, args }),
    runAsync: (fn, ...args) => command('POST', '/execute/async',
      { script: `${PAGE_HELPERS}\n(${fn}).apply(null, arguments)`, args }),
    click: (element) => command('POST', `/element/${element[ELEMENT_KEY]}/click`, {}),
    type: (element, text) => command('POST', `/element/${element[ELEMENT_KEY]}/value`, { text }),
    async hover(element) {
      await command('POST', '/actions', { actions: [{ type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' },
        actions: [{ type: 'pointerMove', duration: 0, origin: element, x: 0, y: 0 }] }] });
      await command('DELETE', '/actions');
    },
    screenshot: async () => Buffer.from(await command('GET', '/screenshot'), 'base64'),
    // Reading the console log empties it, so each read gives what the last page said.
    consoleErrors: async () => (await command('POST', '/se/log', { type: 'browser' }))
      .filter((entry) => entry.level === 'SEVERE').map((entry) => entry.message),
    async setViewport({ width, height }) {
      const outer = await command('POST', '/window/rect', { width, height });
      const [innerWidth, innerHeight] = await browser.run(() => [innerWidth, innerHeight]);
      await command('POST', '/window/rect',
        { width: outer.width + width - innerWidth, height: outer.height + height - innerHeight });
      return browser.run(() => [innerWidth, innerHeight]);
    },
    close: () => command('DELETE', ''),
  };
  return browser;
}

// ---- Run in the page (each function is sent as source text, so it uses nothing outside itself
// but the functions of PAGE_HELPERS, which are sent with it) ----

// Lazy images are made eager, so that "loaded" means the same for every image on the page.
function waitUntilLoaded(timeoutMs, done) {
  for (const image of document.querySelectorAll('img[loading=lazy]')) image.loading = 'eager';
  const start = Date.now();
  (function poll() {
    const loaded = document.readyState === 'complete' && document.fonts.status === 'loaded'
      && [...document.images].every((image) => image.complete);
    if (loaded || Date.now() - start > timeoutMs) done(loaded);
    else setTimeout(poll, 20);
  })();
}

function inspectPage(codeSelector) {
  const box = (element) => {
    const { width, height } = element.getBoundingClientRect();
    return { width, height };
  };
  const describe = (element) => element.textContent.replace(/\s+/g, ' ').trim().slice(0, 40);
  const prose = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    const parent = text.parentElement;
    if (text.data.trim() && !parent.closest(codeSelector) && parent.checkVisibility()) prose.push(text.data);
  }
  return {
    title: document.title,
    ids: [...document.querySelectorAll('[id]')].map((element) => element.id)
      .concat([...document.querySelectorAll('a[name]')].map((anchor) => anchor.name)),
    links: [...document.querySelectorAll('a[href]')].map((a) => ({ href: a.getAttribute('href'), url: a.href })),
    stylesheets: [...document.querySelectorAll('link[rel~=stylesheet]')].map((link) => link.href),
    scripts: [...document.scripts].filter((script) => script.src).map((script) => script.src),
    images: [...document.images].map((image) => ({
      url: image.currentSrc || image.src,
      loaded: image.complete && image.naturalWidth > 0,
      alt: (image.getAttribute('alt') || '').trim(),
      ...box(image),
    })),
    maths: [...document.querySelectorAll('math')].map((math) => ({
      text: describe(math),
      error: math.querySelector('merror') && describe(math.querySelector('merror')),
      ...box(math),
    })),
    prose,
  };
}

// The element a URL's #fragment names, as the browser finds it: by id, else an <a name>.
function fragmentTarget(hash) {
  let id = hash.slice(1);
  try {
    id = decodeURIComponent(id);
  } catch { /* a stray %: the id as written */ }
  return id ? document.getElementById(id) || document.querySelector(`a[name="${CSS.escape(id)}"]`) : null;
}

const PAGE_HELPERS = [fragmentTarget].join('\n');

// The same-page link to a chunk to follow: one whose chunk is below the first screen if any.
function findChunkLink(chunkSelector) {
  const links = [...document.querySelectorAll('a[href^="#"]')].filter((a) => {
    const target = fragmentTarget(a.hash);
    return target && target.closest(chunkSelector) && a.getClientRects().length > 0;
  });
  const below = links.find((a) => fragmentTarget(a.hash).getBoundingClientRect().top >= innerHeight);
  const link = below || links[0];
  return link ? { link, hash: link.hash, text: link.textContent.trim() } : null;
}

// A link to a chunk on another page, whose preview comes from chunks.js.
function findOtherPageChunkLink() {
  const link = [...document.querySelectorAll('a[href*=".html#NW"]')].find((a) => a.getClientRects().length > 0);
  return link ? { link, text: link.textContent.trim() } : null;
}

// Waits until an element matches selector; says whether one did.
function waitForSelector(selector, timeoutMs, done) {
  const start = Date.now();
  (function poll() {
    if (document.querySelector(selector)) done(true);
    else if (Date.now() - start > timeoutMs) done(false);
    else setTimeout(poll, 50);
  })();
}

function scrollIntoViewAndMeasure(element) {
  element.scrollIntoView({ block: 'center', behavior: 'instant' });
  return scrollY;
}

// Waits until the address's fragment is `hash` (or, `leaving`, is no longer `hash`) and the page
// has stopped scrolling (smooth scrolling takes a while), then says where the page and the
// fragment's target stand.  A top of -0.2 px, from the layout's fractions, is in the window.
function waitForScrolling(hash, leaving, timeoutMs, done) {
  const target = fragmentTarget(hash);
  const start = Date.now();
  let lastScrollY = NaN;
  (function poll() {
    const settled = (location.hash === hash) !== leaving && scrollY === lastScrollY;
    lastScrollY = scrollY;
    if (settled || Date.now() - start > timeoutMs) {
      const top = target.getBoundingClientRect().top;
      done({ hash: location.hash, scrollY, top, inView: top > -1 && top < innerHeight, innerHeight });
    } else {
      setTimeout(poll, 50);
    }
  })();
}

// null when the page does not scroll sideways; else the page's width and the culprit: of the
// elements and texts that stick out past the window's right edge with no scrolling (or clipping)
// box around them, the one that reaches furthest (the outermost of those that reach as far).
function measureOverflow() {
  const pageWidth = document.documentElement.scrollWidth;
  if (pageWidth <= innerWidth + 1) return null;
  const contained = (node) => {
    for (let up = node.parentElement; up && up !== document.documentElement; up = up.parentElement) {
      if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(up).overflowX)) return true;
    }
    return false;
  };
  const boxOf = (node) => {
    if (node.nodeType === Node.ELEMENT_NODE) return node.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(node);
    return range.getBoundingClientRect();
  };
  let culprit = null;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let node = walker.currentNode; node; node = walker.nextNode()) {
    const { right } = boxOf(node);
    if (right > (culprit ? culprit.right : innerWidth + 1) && !contained(node)) culprit = { node, right };
  }
  if (!culprit) return { pageWidth, culprit: null };
  const { node, right } = culprit;
  const element = node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
  const name = element.localName + (element.id ? `#${element.id}` : '')
    + [...element.classList].map((className) => `.${className}`).join('');
  const { width } = element.getBoundingClientRect();
  return { pageWidth, culprit: { name: node === element ? name : `the text in ${name}`, width, right } };
}

// ---- The checks ----

const GROUPS = ['load', 'links', 'tex', 'images', 'math', 'chunk', 'helps', 'overflow', 'shots'];

function newReport() {
  const problems = new Map(GROUPS.map((group) => [group, new Set()]));
  return { problems, add: (group, where, problem) => problems.get(group).add(`${where}: ${problem}`) };
}

const plural = (count, word) => `${count} ${word}${count === 1 ? '' : 's'}`;
const quote = (text) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return `"${line.length > 60 ? `${line.slice(0, 57)}...` : line}"`;
};

// The TeX in a text, as "$, \\sqrt in "...the text..."", or null if there is none.
function rawTexIn(text) {
  const found = [...new Set(text.match(RAW_TEX))];
  if (found.length === 0) return null;
  const start = Math.max(0, text.search(RAW_TEX) - 20);
  return `${found.join(', ')} in ${quote(text.slice(start))}`;
}

// The text of an SVG file's <text> elements, tspans joined, entities decoded.
function svgLabels(svg) {
  const entities = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  const decode = (text) => text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name) => {
    if (name[0] === '#') return String.fromCodePoint(Number(name[1] === 'x' ? `0${name.slice(1)}` : name.slice(1)));
    return entities[name] ?? whole;
  });
  return [...svg.matchAll(/<text\b[^>]*>([\s\S]*?)<\/text>/g)].map((match) => decode(match[1].replace(/<[^>]*>/g, '')));
}

function decodeFragment(hash) {
  try {
    return decodeURIComponent(hash.slice(1));
  } catch {
    return hash.slice(1);  // a stray %: the id as written
  }
}

function isFile(file) {
  return fs.existsSync(file) && fs.statSync(file).isFile();
}

// The ids of a file that was not opened as a page (a page below the top level, an SVG).
function idsOnDisk(file) {
  const text = fs.readFileSync(file, 'utf8');
  const ids = [...text.matchAll(/\bid\s*=\s*["']([^"']*)["']/g),
    ...text.matchAll(/<a\s[^>]*\bname\s*=\s*["']([^"']*)["']/g)];
  return new Set(ids.map((match) => match[1]));
}

function checkResources(page, facts, site, report) {
  for (const [kind, urls] of [['stylesheet', facts.stylesheets], ['script', facts.scripts]]) {
    for (const url of urls) {
      const file = site.fileOf(url);
      if (!file) report.add('load', page, `${kind} ${url} is not a file of the site`);
      else if (!isFile(file)) report.add('load', page, `${kind} ${site.name(url)} is missing`);
    }
  }
  for (const image of facts.images.filter((image) => !image.loaded)) {
    report.add('load', page, `image ${site.name(image.url)} did not load`);
  }
}

function checkImages(page, facts, site, report) {
  for (const image of facts.images) {
    if (!(image.width > 0 && image.height > 0)) {
      report.add('images', page, `image ${site.name(image.url)} is ${image.width} by ${image.height} pixels on the page`);
    }
    if (!image.alt) report.add('images', page, `image ${site.name(image.url)} has no alt text`);
  }
}

function checkMath(page, facts, report) {
  facts.maths.forEach((math, index) => {
    const which = `math ${index + 1} of ${facts.maths.length}`;
    if (math.error !== null) report.add('math', page, `${which} has an merror: ${quote(math.error)}`);
    if (!(math.width > 0 && math.height > 0)) report.add('math', page, `${which} (${quote(math.text)}) has an empty box`);
  });
}

function checkProse(page, facts, site, report) {
  const texts = [['the title', facts.title], ...facts.prose.map((text) => ['the text', text]),
    ...facts.images.map((image) => [`the alt text of ${site.name(image.url)}`, image.alt])];
  for (const [where, text] of texts) {
    const tex = rawTexIn(text);
    if (tex) report.add('tex', page, `raw TeX in ${where}: ${tex}`);
  }
}

function checkSvgFigures(factsByPage, site, report) {
  const svgFiles = new Set([...factsByPage.values()].flatMap((facts) => facts.images.map((image) => site.fileOf(image.url)))
    .filter((file) => file && file.endsWith('.svg') && isFile(file)));
  for (const file of svgFiles) {
    const labels = svgLabels(fs.readFileSync(file, 'utf8')).filter(rawTexIn);
    if (labels.length > 0) {
      report.add('tex', path.relative(site.dir, file),
        `raw TeX in ${plural(labels.length, 'label')}: ${labels.map(quote).join(', ')}`);
    }
  }
  return svgFiles.size;
}

function checkLinks(factsByPage, site, report) {
  const idsByFile = new Map([...factsByPage].map(([page, facts]) => [path.join(site.dir, page), new Set(facts.ids)]));
  let count = 0;
  for (const [page, facts] of factsByPage) {
    for (const { href, url } of facts.links.filter((link) => !EXTERNAL_LINK.test(link.href))) {
      count++;
      const file = site.fileOf(url);
      const fragment = decodeFragment(new URL(url).hash);
      if (!file) {
        report.add('links', page, `link ${quote(href)} leaves the site`);
      } else if (!isFile(file)) {
        report.add('links', page, `link ${quote(href)}: no file ${path.relative(site.dir, file)}`);
      } else if (fragment && fragment !== 'top') {  // "#" and "#top" go to the top, as in HTML
        const ids = idsByFile.get(file) ?? idsOnDisk(file);
        if (!ids.has(fragment)) {
          report.add('links', page, `link ${quote(href)}: ${path.relative(site.dir, file)} has no id ${quote(fragment)}`);
        }
      }
    }
  }
  return count;
}

// Clicks a same-page link to a chunk (WebDriver's click, as a reader would), then goes back.
async function checkChunkLink(browser, page, report) {
  const found = await browser.run(findChunkLink, CHUNK_SELECTOR);
  if (!found) return false;
  const { link, hash, text } = found;
  const which = `the chunk link ${quote(text)} (${hash})`;
  const before = await browser.run(scrollIntoViewAndMeasure, link);
  await browser.click(link);
  const after = await browser.runAsync(waitForScrolling, hash, false, SCROLL_TIMEOUT_MS);
  if (!after.inView) {
    report.add('chunk', page,
      `after ${which}, the chunk's top is at ${Math.round(after.top)} px, outside the window (0 to ${after.innerHeight})`);
  }
  if (after.hash !== hash) {  // the click went nowhere: back would leave the page
    report.add('chunk', page, `${which} left the address's fragment at ${quote(after.hash)}`);
    return true;
  }
  await browser.run(() => history.back());
  const back = await browser.runAsync(waitForScrolling, hash, true, SCROLL_TIMEOUT_MS);
  if (Math.abs(back.scrollY - before) > BACK_TOLERANCE_PX) {
    report.add('chunk', page, `history.back() after ${which} left the page at ${Math.round(back.scrollY)} px, `
      + `not at ${Math.round(before)} px where the reader was`);
  }
  return true;
}

// Resting the pointer on a reference to a chunk, of this page and of another, shows the chunk.
async function checkPreviews(browser, page, report) {
  const links = [await browser.run(findChunkLink, CHUNK_SELECTOR), await browser.run(findOtherPageChunkLink)];
  for (const found of links.filter(Boolean)) {
    await browser.run(scrollIntoViewAndMeasure, found.link);
    await browser.hover(found.link);
    if (!(await browser.runAsync(waitForSelector, PREVIEW, SCROLL_TIMEOUT_MS))) {
      report.add('helps', page, `resting on the chunk reference ${quote(found.text)} shows no preview (${PREVIEW})`);
    }
  }
  return links.filter(Boolean).length;
}

// Typing in the contents' search box lists links.
async function checkSearch(browser, page, report) {
  const input = await browser.run(() => document.getElementById('search'));
  if (!input) {
    report.add('helps', page, 'has no search box (#search)');
    return;
  }
  await browser.type(input, SEARCH_WORDS);
  if (!(await browser.runAsync(waitForSelector, '#search-results a', SCROLL_TIMEOUT_MS))) {
    report.add('helps', page, `searching for ${quote(SEARCH_WORDS)} lists no link`);
  }
}

function checkOverflow(page, viewport, overflow, report) {
  if (!overflow) return;
  const { pageWidth, culprit } = overflow;
  const named = culprit ? `; furthest past the edge: ${culprit.name} (${Math.round(culprit.width)} px wide), `
    + `to ${Math.round(culprit.right)} px` : '';
  report.add('overflow', page, `at ${viewport.width} px the page is ${pageWidth} px wide and scrolls sideways${named}`);
}

// One visit: wait for the page, read its console, and at the first width collect its facts (ids,
// links, images, math, text) and try its chunk link; at every width measure and photograph it.
async function visitPage(browser, page, viewport, run) {
  const { site, report, factsByPage } = run;
  await browser.open(pathToFileURL(path.join(site.dir, page)).href);
  if (!(await browser.runAsync(waitUntilLoaded, LOAD_TIMEOUT_MS))) {
    report.add('load', page, `did not finish loading in ${LOAD_TIMEOUT_MS / 1000} s`);
  }
  for (const message of await browser.consoleErrors()) report.add('load', page, `console: ${site.shorten(message)}`);
  checkOverflow(page, viewport, await browser.run(measureOverflow), report);
  const shot = path.join(run.shotsDir, `${path.basename(page, '.html')}-${viewport.width}.png`);
  fs.writeFileSync(shot, await browser.screenshot());
  run.shots++;
  if (viewport !== VIEWPORTS[0]) return;
  factsByPage.set(page, await browser.run(inspectPage, CODE_SELECTOR));
  if (!run.chunkPage && await checkChunkLink(browser, page, report)) {
    run.chunkPage = page;
    run.previews = await checkPreviews(browser, page, report);
  }
  if (page === SEARCH_PAGE) {
    await checkSearch(browser, page, report);
    run.searched = true;
  }
}

async function sizeWindow(browser, viewport, report) {
  const [innerWidth, innerHeight] = await browser.setViewport(viewport);
  if (innerWidth !== viewport.width || innerHeight !== viewport.height) {
    report.add('overflow', 'browser',
      `the window is ${innerWidth} by ${innerHeight}, not ${viewport.width} by ${viewport.height}`);
  }
}

// Every page at every width, in one browser.  A page that cannot be checked (a script that never
// ends hangs its renderer) is reported, and the visits go on in a new browser, MAX_BROKEN_PAGES
// times at most.
async function visitAll(driverUrl, pages, run) {
  let browser = await openBrowser(driverUrl);
  let broken = 0;
  try {
    for (const viewport of VIEWPORTS) {
      await sizeWindow(browser, viewport, run.report);
      for (const page of pages) {
        try {
          await visitPage(browser, page, viewport, run);
        } catch (error) {
          run.report.add('load', page, `could not be checked at ${viewport.width} px: ${error.message}`);
          if (++broken === MAX_BROKEN_PAGES) {
            run.report.add('load', 'site', `the check stopped after ${MAX_BROKEN_PAGES} pages that could not be checked`);
            return;
          }
          await browser.close().catch(() => {});
          browser = await openBrowser(driverUrl);
          await sizeWindow(browser, viewport, run.report);
        }
      }
    }
  } finally {
    await browser.close().catch(() => {});  // best effort: the exit kills the browser anyway
  }
}

// The checks on what the visits collected; returns the counts for the summary.
function checkFacts({ site, report, factsByPage, chunkPage, searched }) {
  for (const [page, facts] of factsByPage) {
    checkResources(page, facts, site, report);
    checkProse(page, facts, site, report);
    checkImages(page, facts, site, report);
    checkMath(page, facts, report);
  }
  if (!chunkPage) report.add('chunk', 'site', `no page links to a chunk of its own (${CHUNK_SELECTOR})`);
  if (!searched) report.add('helps', 'site', `has no ${SEARCH_PAGE}, whose search box is tried`);
  const all = (key) => [...factsByPage.values()].reduce((sum, facts) => sum + facts[key].length, 0);
  return {
    links: checkLinks(factsByPage, site, report),
    svgs: checkSvgFigures(factsByPage, site, report),
    images: all('images'),
    maths: all('maths'),
  };
}

function siteOf(dir) {
  const prefix = pathToFileURL(dir).href + '/';
  return {
    dir,
    // The file of the site that a URL names (without its query and fragment), or null.
    fileOf(url) {
      if (!url.startsWith('file:')) return null;
      const file = fileURLToPath(new URL(url.replace(/[?#].*/, '')));
      const relative = path.relative(dir, file);
      return relative === '..' || relative.startsWith(`..${path.sep}`) ? null : file;
    },
    name: (url) => decodeURI(url.startsWith(prefix) ? url.slice(prefix.length) : url),
    shorten: (message) => message.split(prefix).join(''),
  };
}

function summary(run, pages, counts) {
  const widths = VIEWPORTS.map((viewport) => viewport.width).join(' or ');
  return {
    load: `every page loads with no console error and no missing file (${plural(pages.length, 'page')})`,
    links: `every internal link and anchor resolves (${plural(counts.links, 'link')})`,
    tex: `no raw TeX in the pages' text or the SVG figures' labels (${plural(counts.svgs, 'figure')})`,
    images: `every image has a size on the page and an alt text (${plural(counts.images, 'image')})`,
    math: `every math element renders, with no merror and a box (${plural(counts.maths, 'element')})`,
    chunk: run.chunkPage ? `a chunk link on ${run.chunkPage} brings its chunk into view, and back returns`
      : `a chunk link brings its chunk into view`,
    helps: `resting on ${plural(run.previews || 0, 'chunk reference')} shows the chunk; the search of ${SEARCH_PAGE} finds ${quote(SEARCH_WORDS)}`,
    overflow: `no page scrolls sideways at ${widths} pixels`,
    shots: `${plural(run.shots, 'screenshot')} of the first screens in ${run.shotsDir}`,
  };
}

// How many of each group's problems to show: MAX_SHOWN lines dealt to the groups in turn, so
// that every group that failed shows some.
function shares(sizes) {
  const shown = sizes.map(() => 0);
  for (let left = MAX_SHOWN; left > 0 && shown.some((count, i) => count < sizes[i]);) {
    sizes.forEach((size, i) => {
      if (left > 0 && shown[i] < size) { shown[i]++; left--; }
    });
  }
  return shown;
}

function printReport(lines, report) {
  const problems = GROUPS.map((group) => [...report.problems.get(group)]);
  const shown = shares(problems.map((list) => list.length));
  GROUPS.forEach((group, i) => {
    console.log(`  ${'HTML'.padEnd(8)} ${lines[group]}`);
    for (const problem of problems[i].slice(0, shown[i])) console.log(problem);
    if (problems[i].length > shown[i]) console.log(`... and ${problems[i].length - shown[i]} more`);
  });
  const total = problems.flat().length;
  if (total > 0) console.log(`${plural(total, 'problem')} in the HTML edition`);
  return total;
}

async function main() {
  const [siteDir, shotsDir, ...extra] = process.argv.slice(2);
  if (!siteDir || !shotsDir || extra.length > 0 || !fs.existsSync(siteDir)) {
    console.error('usage: node tools/check-html.mjs SITE_DIR SHOTS_DIR (SITE_DIR must exist)');
    process.exit(2);
  }
  const site = siteOf(path.resolve(siteDir));
  const pages = fs.readdirSync(site.dir).filter((name) => name.endsWith('.html')).sort();
  fs.mkdirSync(shotsDir, { recursive: true });
  const run = { site, report: newReport(), factsByPage: new Map(), shotsDir, shots: 0, chunkPage: null, previews: 0, searched: false };

  await visitAll(await startChromedriver(), pages, run);
  process.exit(printReport(summary(run, pages, checkFacts(run)), run.report) > 0 ? 1 : 0);
}

main().catch((error) => {
  console.error(`check-html: ${error.message}`);
  process.exit(1);
});
