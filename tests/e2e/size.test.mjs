// Download size of the release build: printed every run, fails only above the budget.

import assert from "node:assert/strict";
import { test } from "node:test";

import { distBundleSizes } from "./harness.mjs";

/** The page should load quickly on a lab network: wasm + js, gzip -9, in bytes. */
const GZIP_BUDGET_BYTES = 400_000;

test(`wasm + js gzip size is within ${GZIP_BUDGET_BYTES / 1000} kB`, (t) => {
  const files = distBundleSizes();
  assert.ok(files.some((file) => file.name.endsWith(".wasm")), "no .wasm in dist/");
  for (const { name, raw, gzip } of files) {
    t.diagnostic(`${name}: ${(raw / 1000).toFixed(1)} kB raw, ${(gzip / 1000).toFixed(1)} kB gzip`);
  }
  const total = files.reduce((sum, file) => sum + file.gzip, 0);
  t.diagnostic(`total gzip: ${(total / 1000).toFixed(1)} kB (budget ${GZIP_BUDGET_BYTES / 1000} kB)`);
  assert.ok(total <= GZIP_BUDGET_BYTES, `gzip total ${total} B exceeds ${GZIP_BUDGET_BYTES} B`);
});
