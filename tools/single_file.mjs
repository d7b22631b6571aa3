#!/usr/bin/env node
// Builds the one-file page: dist/index.html with its stylesheet, icon, wasm-bindgen glue
// and wasm inlined, so the page works opened straight from disk (file://), attached to
// a wiki page or mailed. Run after tools/build.sh:
//
//   node tools/single_file.mjs [--dist dist] [--out dist-single/hsi-gpu-planner.html]
//
// How: the glue module is imported from a data: URL (a file:// page may not import
// modules from files) and the wasm is passed to its init function as bytes decoded
// from base64. Every asset reference Trunk writes must be replaced; anything left
// pointing at a file is an error, so a change in Trunk's output cannot slip through.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function argument(name, fallback) {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] ? path.resolve(process.argv[at + 1]) : fallback;
}

const dist = argument("--dist", path.join(REPO, "dist"));
const out = argument("--out", path.join(REPO, "dist-single", "hsi-gpu-planner.html"));

const read = (relative) => readFileSync(path.join(dist, relative));
const base64 = (relative) => read(relative).toString("base64");

/** Replaces the one match of `pattern` (which must match exactly once) with `replace(match)`. */
function replaceOnce(html, pattern, what, replace) {
  const matches = [...html.matchAll(new RegExp(pattern, "g"))];
  if (matches.length !== 1) {
    throw new Error(`expected one ${what} in ${dist}/index.html, found ${matches.length}`);
  }
  return html.replace(matches[0][0], () => replace(matches[0]));
}

let html = read("index.html").toString("utf8");

html = replaceOnce(html, /<link rel="icon" href="\.\/([^"]+\.svg)"[^>]*>/.source, "icon", (m) =>
  `<link rel="icon" href="data:image/svg+xml;base64,${base64(m[1])}"/>`,
);

html = replaceOnce(html, /<link rel="stylesheet" href="\.\/([^"]+\.css)"[^>]*>/.source, "stylesheet", (m) => {
  const css = read(m[1]).toString("utf8");
  if (/url\(\s*['"]?(?!data:)/.test(css)) throw new Error(`${m[1]} refers to other files`);
  return `<style>\n${css.replaceAll("</style", "<\\/style")}\n</style>`;
});

// The preload hints point at files that no longer exist.
html = html.replace(/<link rel="(?:modulepreload|preload)" href="\.\/[^"]+"[^>]*>/g, "");

html = replaceOnce(
  html,
  /import init, \* as bindings from '\.\/([^']+\.js)';\s*const wasm = await init\(\{ module_or_path: '\.\/([^']+\.wasm)' \}\);/
    .source,
  "wasm-bindgen loader",
  (m) => {
    const glue = read(m[1]).toString("utf8");
    if (/^\s*import\s/m.test(glue)) throw new Error(`${m[1]} imports other modules (snippets)`);
    return [
      `const bindings = await import("data:text/javascript;base64,${Buffer.from(glue).toString("base64")}");`,
      `const init = bindings.default;`,
      `const wasmBytes = Uint8Array.from(atob("${base64(m[2])}"), (c) => c.charCodeAt(0));`,
      `const wasm = await init({ module_or_path: wasmBytes });`,
    ].join("\n");
  },
);

const leftover = html.match(/(?:href|src)="\.\/[^"]*"|from '\.\/[^']*'/);
if (leftover) throw new Error(`${leftover[0]} still refers to a file`);

mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, html);
console.log(`${out}: ${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB`);
