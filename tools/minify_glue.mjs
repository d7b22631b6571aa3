#!/usr/bin/env node
// Trunk's post-build hook (Trunk.toml): minifies the wasm-bindgen glue of a release build
// in Trunk's staging folder, before it becomes dist/. The glue is 45 kB of readable
// JavaScript (7.9 kB gzip); terser brings it to 6.0 kB gzip, bytes the page's 400 kB
// budget spends on features instead. Trunk's own `minify` leaves this file as it is.
// Debug builds keep the readable glue.

import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

import { minify } from "terser";

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) throw new Error("TRUNK_STAGING_DIR is not set: run this as Trunk's post_build hook");

if (process.env.TRUNK_PROFILE === "release") {
  const glue = readdirSync(staging).filter((name) => name.endsWith(".js"));
  if (glue.length !== 1) throw new Error(`expected one .js in ${staging}, found ${glue.join(", ") || "none"}`);
  const file = path.join(staging, glue[0]);
  // An ES module: only names local to it are shortened; its exports and the wasm's import
  // names (properties) stay as wasm-bindgen wrote them.
  const { code } = await minify(readFileSync(file, "utf8"), { module: true, compress: true, mangle: true });
  writeFileSync(file, code);
}
