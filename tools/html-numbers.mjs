// Every number a program wrote for the text is printed with the same value in the PDF and in
// the HTML edition: for each macro of NUMBERS that the web edition's prose uses (the HTML
// build's woven TeX, where code and figure bodies are markers), its value is found in the text
// of the HTML pages; for each that the printed book's woven TeX uses, in the PDF's text
// (pdftotext).  The two differ where the printed book leaves text to the web edition.
//
//   node tools/html-numbers.mjs NUMBERS WOVEN PRINTED PDF SITE
//
// A value in C's e-notation is printed by \sci as a mantissa times a power of ten: its mantissa
// and its exponent are looked for.  Spaces are ignored, and the minus sign counts as a hyphen.
// Prints one line when all are found; else each missing value, and exits 1.  Bad usage: exit 2.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

if (process.argv.length !== 7) {
  process.stderr.write('usage: node tools/html-numbers.mjs NUMBERS WOVEN PRINTED PDF SITE\n');
  process.exit(2);
}
const [numbersFile, wovenFile, printedFile, pdf, site] = process.argv.slice(2);

const flatten = (text) => text.replace(/[\u2212\u2013]/g, '-').replace(/[\s\u00a0\u2009\u200a\u2006]+/g, '');

function macroValues() {
  const values = new Map();
  for (const m of fs.readFileSync(numbersFile, 'utf8').matchAll(/^\\newcommand\{\\(\w+)\}\{(.*)\}$/gm))
    values.set(m[1], m[2].replace(/\{,\}/g, ','));
  return values;
}

function usedMacros(values, file) {
  const woven = fs.readFileSync(file, 'utf8');
  const used = new Set();
  for (const m of woven.matchAll(/\\([A-Za-z]+)/g)) if (values.has(m[1])) used.add(m[1]);
  return used;
}

// The strings a value must show as: itself, or a mantissa and an exponent.
function printedForms(value) {
  const sci = value.match(/^(-?[\d.]+)e([+-]?\d+)$/);
  if (sci) return [sci[1], String(Number(sci[2]))];
  return [value.replace(/\\([_%&#$])/g, '$1').replace(/\\[a-z]+\s*/gi, '').replace(/[{}]/g, '').replace(/~/g, ' ')];
}

function htmlText() {
  let text = '';
  for (const f of fs.readdirSync(site).filter((f) => f.endsWith('.html')))
    text += fs.readFileSync(path.join(site, f), 'utf8').replace(/<[^>]*>/g, '')
      .replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&nbsp;/g, ' ');
  return flatten(text);
}

const values = macroValues();
const used = usedMacros(values, wovenFile);
const printed = usedMacros(values, printedFile);
const pdfText = flatten(execFileSync('pdftotext', ['-enc', 'UTF-8', pdf, '-'], { maxBuffer: 1 << 28 }).toString());
const webText = htmlText();
const missing = [];
for (const [names, text, edition] of [[printed, pdfText, 'PDF'], [used, webText, 'HTML']])
  for (const name of names)
    for (const form of printedForms(values.get(name)))
      if (!text.includes(flatten(form)))
        missing.push(`\\${name} = ${values.get(name)}: "${form}" is not in the ${edition}'s text`);
if (missing.length) {
  process.stdout.write(`${missing.slice(0, 30).join('\n')}\n${missing.length} values missing\n`);
  process.exit(1);
}
process.stdout.write(`  HTML     ${printed.size} numbers of the printed text have their values in the PDF, ${used.size} of the web edition's in the HTML\n`);
