// The HTML edition's two small helps; without them every page still reads and every link works.
// 1. Resting the pointer on a reference to a chunk shows the chunk (from this page, or from
//    chunks.js, loaded the first time it is needed: a script loads from file:// where a fetch
//    of JSON would not).
// 2. The search box of the contents page filters the headings and the subject index (search.js).
'use strict';

function loadScript(src, ready) {
  const script = document.createElement('script');
  script.src = src;
  script.onload = ready;
  document.head.appendChild(script);
}

function chunkIdOf(link) {
  const url = new URL(link.href, location.href);
  const id = decodeURIComponent(url.hash.slice(1));
  return id.startsWith('NW') ? { id, samePage: url.pathname === location.pathname } : null;
}

let preview = null;
function hidePreview() { if (preview) { preview.remove(); preview = null; } }

function showPreview(link, html) {
  hidePreview();
  preview = document.createElement('div');
  preview.className = 'chunk-preview';
  preview.innerHTML = html;
  preview.querySelectorAll('[id]').forEach((e) => e.removeAttribute('id'));
  document.body.appendChild(preview);
  const box = link.getBoundingClientRect();
  const left = Math.max(4, Math.min(box.left + scrollX, scrollX + innerWidth - preview.offsetWidth - 4));
  preview.style.left = `${left}px`;
  preview.style.top = `${box.bottom + scrollY + 4}px`;
}

function previewChunk(link) {
  const target = chunkIdOf(link);
  if (!target) return;
  const here = target.samePage && document.getElementById(target.id);
  if (here && here.classList.contains('chunk')) { showPreview(link, here.outerHTML); return; }
  const fromData = () => window.bookChunks && window.bookChunks[target.id]
    && link.matches(':hover') && showPreview(link, window.bookChunks[target.id]);
  if (window.bookChunks) fromData(); else loadScript('chunks.js', fromData);
}

document.addEventListener('mouseover', (event) => {
  const link = event.target.closest && event.target.closest('a[href*="#NW"]');
  if (link && !link.closest('.chunk-preview')) previewChunk(link);
});
document.addEventListener('mouseout', (event) => {
  const link = event.target.closest && event.target.closest('a[href*="#NW"]');
  if (link && !(event.relatedTarget && preview && preview.contains(event.relatedTarget))) hidePreview();
});
document.addEventListener('keydown', (event) => { if (event.key === 'Escape') hidePreview(); });

function runSearch(input, results) {
  const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
  results.textContent = '';
  if (!words.length || !window.bookSearch) return;
  const found = window.bookSearch.filter((e) => words.every((w) => e.text.toLowerCase().includes(w)));
  for (const entry of found.slice(0, 40)) {
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = entry.href;
    link.textContent = entry.text;
    item.append(link, entry.kind === 'subject' ? ' (index)' : '');
    results.appendChild(item);
  }
  if (!found.length) results.textContent = 'Nothing found.';
}

const input = document.getElementById('search');
if (input) {
  const results = document.getElementById('search-results');
  input.addEventListener('input', () => {
    if (window.bookSearch) runSearch(input, results);
    else loadScript('search.js', () => runSearch(input, results));
  });
}
