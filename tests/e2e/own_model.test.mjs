// Your own model on the page: the exporter's layer list (the committed ResNet-18 fixture)
// loads as the custom model and estimates as the CLI does; a scenario JSON replaces the
// scenario; a broken file names the field and keeps the page as it was; measure.py's CPU
// dry run of that scenario loads beside it.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import { REPO, cliJson, estimateWithCli, parseByteQuantity, startApp } from "./harness.mjs";

const RESNET = JSON.parse(
  readFileSync(path.join(REPO, "core/tests/fixtures/exported/resnet18.json"), "utf8"),
);
const HU1D_SCENARIO = path.join(REPO, "tools/samples/scenario_hu1d.json");

let started;
let app;

before(async () => {
  started = await startApp("/");
  app = started.app;
});

after(() => started?.close());

/** Chooses `text` as a file named `name` in the model loader. */
function load(name, text) {
  return app.page.getByTestId("model-file").setInputFiles({
    name,
    mimeType: "application/json",
    buffer: Buffer.from(text),
  });
}

const selectedModel = () =>
  app.page.locator("#model").evaluate((select) => select.selectedOptions[0].textContent);

test("an exported layer list becomes the custom model and estimates as the CLI does", async () => {
  await load("resnet18.json", JSON.stringify(RESNET.spec));
  await app.page.getByTestId("custom-model-note").waitFor();
  // The details below the dashboard (the parameter count) follow once the scenario rests.
  await app.page.locator(".rested:not(.stale)").waitFor({ state: "attached" });
  assert.equal(await selectedModel(), `custom: ${RESNET.spec.name}`);
  assert.match(await app.text("custom-model-note"), /\[30, 32, 32\]/);
  const params = (await app.text("params")).replace(/\D/g, "");
  assert.equal(Number(params), RESNET.torch_params);

  // The page's scenario is the default one with this model.
  const defaults = cliJson(["scenario"]);
  const cli = estimateWithCli(
    JSON.stringify({ ...defaults, model: { kind: "custom", spec: RESNET.spec } }),
  );
  const shown = parseByteQuantity(await app.text("total-memory"));
  assert.ok(
    Math.abs(shown.bytes - cli.memory.total) <= shown.resolution,
    `page ${shown.bytes} vs CLI ${cli.memory.total}`,
  );
});

test("a broken layer list names the field and keeps the model", async () => {
  const broken = structuredClone(RESNET.spec);
  broken.layers[2].kernel = "3";
  await load("broken.json", JSON.stringify(broken, null, 1));
  const error = await app.text("model-file-error");
  assert.match(error, /broken\.json/);
  assert.match(error, /layers\[2\]\.kernel/);
  assert.equal(await selectedModel(), `custom: ${RESNET.spec.name}`);
});

test("a scenario file replaces the scenario", async () => {
  await load("scenario_hu1d.json", readFileSync(HU1D_SCENARIO, "utf8"));
  await app.page.waitForFunction(() => document.querySelector("#model")?.value === "hu1d");
  assert.equal(await app.page.getByTestId("custom-model-note").count(), 0);
  assert.equal(await app.page.getByTestId("model-file-error").count(), 0);
  assert.equal(await app.page.locator("#bands-input").inputValue(), "200");
  assert.deepEqual(app.consoleErrors, []);
});

test("a dry run of that scenario loads and compares nothing, and cannot calibrate", async () => {
  await app.page
    .getByTestId("measurement-file")
    .setInputFiles(path.join(REPO, "tools/samples/dry_run_hu1d.json"));
  const measured = app.page.getByTestId("measured-case");
  await measured.waitFor();
  const text = await measured.innerText();
  assert.match(text, /no CUDA figure to compare/);
  assert.match(text, /dry run on the CPU/);
  assert.ok(await app.page.getByTestId("calibrate").isDisabled());
});
