//! `hsi-gpu summary` and `hsi-gpu options --summary`: the figures are `estimate`'s and
//! `options`' own, the words the page's, in English and Chinese; errors as `estimate`'s.

mod common;

use common::{json, one_line_error, run};
use hsi_gpu_core::whatifs::estimate_all;
use hsi_gpu_core::{format, scenario::scenario_from_json};
use hsi_gpu_i18n::compare::C;
use hsi_gpu_i18n::summary::S;
use hsi_gpu_i18n::whatifs::{best_lever_text, X};
use hsi_gpu_i18n::{Lang, T};
use serde_json::Value;

const LANGS: [(Lang, &str); 2] = [(Lang::En, "en"), (Lang::Zh, "zh")];

/// The summary's stdout, after checking it succeeded.
fn summary(args: &[&str], stdin: &str) -> String {
    let out = run(args, stdin);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number: {v}"))
}

/// `text` without its white space: wrapping moves line breaks, not words.
fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The page's verdict and best lever for `scenario`, in `lang`.
fn page_words(scenario: &str, lang: Lang) -> [String; 2] {
    let s = scenario_from_json(scenario).unwrap();
    let report = estimate_all(&s).unwrap();
    let gpu = hsi_gpu_core::gpu::gpu_by_id(&s.gpu).unwrap().name;
    let verdict = hsi_gpu_i18n::verdict_sentences(lang, &report, gpu, s.memory.headroom, s.cards);
    [verdict.join(" "), best_lever_text(&report, lang)]
}

/// The line of `text` that starts (after its indent) with `label`.
fn line<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no line starting with {label:?} in\n{text}"))
}

#[test]
fn summary_of_the_default_scenario_carries_estimates_figures_in_both_languages() {
    let report = json(&run(&["estimate", "-"], "{}"));
    let m = &report["memory"];
    let time = &report["perf"]["time"];
    for (lang, code) in LANGS {
        let text = summary(&["summary", "--lang", code, "-"], "{}");
        // The verdict and the best lever in the page's words, and their figures the JSON's.
        for words in page_words("{}", lang) {
            assert!(
                squash(&text).contains(&squash(&words)),
                "{words}\nmissing in\n{text}"
            );
        }
        assert_eq!(
            line(&text, T::Verdict.get(lang)).trim(),
            T::Verdict.get(lang)
        );
        for figure in [
            format::percent(f(&m["spare_fraction"])),
            format::bytes(f(&m["total"])),
            format::bytes(f(&m["capacity"])),
            format::duration(f(&time["step_s"])),
        ] {
            assert!(text.contains(&figure), "{figure} missing:\n{text}");
        }
        // Memory term by term, each with its share of the total.
        for (term, key) in [
            (T::TermContext, "cuda_context"),
            (T::TermWeights, "weights"),
            (T::TermActivations, "activations"),
            (T::TermOptimizer, "optimizer_states"),
        ] {
            let bytes = f(&m[key]);
            let row = line(&text, term.get(lang));
            assert!(row.contains(&format::bytes(bytes)), "{row}");
            assert!(
                row.ends_with(&format::percent(bytes / f(&m["total"]))),
                "{row}"
            );
        }
        let total = line(&text, T::TotalMemory.get(lang));
        assert!(total.contains(&format::bytes(f(&m["total"]))) && total.ends_with("100 %"));
        let max_batch = line(&text, T::MaxBatch.get(lang));
        assert!(max_batch.ends_with(&format::count(report["max_batch"].as_u64().unwrap())));
        // The step: host, device, input and what bounds it.
        assert!(line(&text, S::HostCpu.get(lang)).ends_with(&format::duration(f(&time["host_s"]))));
        let input = line(&text, S::InputPipeline.get(lang));
        assert!(
            input.contains(&format::duration(f(&time["input_s"]))),
            "{input}"
        );
        assert!(
            line(&text, T::BoundGpu.get(lang)).ends_with(&format::duration(f(&time["device_s"])))
        );
        let bound = line(&text, T::StepBoundBy.get(lang));
        let expected = match time["bound"].as_str().unwrap() {
            "host" => T::BoundHost,
            "input" => T::BoundInput,
            _ => T::BoundDevice,
        };
        assert!(bound.contains(expected.get(lang)), "{bound}");
        // Scaling over 1, 2, 4 and 8 cards of the chosen topology.
        let curve = report["perf"]["scaling"]["ddp"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["interconnect"] == report["perf"]["scaling"]["chosen"])
            .unwrap();
        for p in curve["points"].as_array().unwrap() {
            if [2, 4, 8].contains(&p["cards"].as_u64().unwrap()) {
                let row = line(&text, &format!("{} ", p["cards"]));
                assert!(row.contains(&format::duration(f(&p["step_s"]))), "{row}");
                assert!(row.contains(&format::percent(f(&p["efficiency"]))), "{row}");
            }
        }
        // Cost, and the best lever named as the page names it.
        let tco = line(&text, T::Tco.get(lang));
        assert!(
            tco.contains(&format::money(f(&report["perf"]["cost"]["tco_usd"]))),
            "{tco}"
        );
        assert!(text.contains(X::LeversTitle.get(lang)), "{text}");
        let best = report["best_lever"]["speedup"].as_f64().map(format::times);
        assert!(text.contains(&best.unwrap()), "{text}");
    }
}

#[test]
fn the_chinese_summary_is_in_chinese() {
    let zh = summary(&["summary", "--lang", "zh", "-"], "{}");
    let en = summary(&["summary", "-"], "{}");
    assert_eq!(
        en,
        summary(&["summary", "--lang", "en", "-"], "{}"),
        "English is the default"
    );
    for key in [T::Memory, T::Speed, T::Cost, T::StepTime, T::TermWeights] {
        assert!(zh.contains(key.get(Lang::Zh)), "{key:?}");
        assert!(!zh.contains(key.get(Lang::En)), "{key:?} in English");
    }
    assert!(zh.contains("可以放进 RTX A5500"), "{zh}");
    assert!(zh.contains(S::Share.get(Lang::Zh)));
    // The same figures in both: every number of the English text is in the Chinese one.
    let figures = |t: &str| -> Vec<String> {
        t.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
            .map(|w| w.trim_matches(|c| c == '.' || c == ',').to_string())
            .collect()
    };
    for n in figures(&en) {
        assert!(zh.contains(&n), "{n} is in the English summary only");
    }
}

#[test]
fn the_summary_fits_a_terminal_screen() {
    for input in [
        "{}",
        r#"{"cards": 4, "batch_per_gpu": 32}"#,
        r#"{"model": {"kind": "preset", "id": "vit", "size": "large"}, "patch": 32, "gpu": "h100_sxm",
            "interconnect": "nvswitch", "cards": 8, "precision": "amp_bf16", "sharding": "zero3",
            "offload": true, "nodes": 2, "node_link": "roce_200g", "nics_per_node": 2}"#,
    ] {
        let text = summary(&["summary", "-"], input);
        let lines: Vec<&str> = text.lines().collect();
        // A full-height terminal on a 1080p screen: the busiest scenario here (two nodes,
        // ZeRO-3 with offload, the step's seven parts) takes 75.
        assert!(lines.len() <= 76, "{} lines:\n{text}", lines.len());
        for l in lines {
            assert!(l.chars().count() <= 100, "too wide: {l}");
        }
    }
}

#[test]
fn the_summary_shows_sharding_offload_and_nodes_and_a_scenario_that_does_not_fit() {
    let sharded = r#"{"model": {"kind": "preset", "id": "vit", "size": "large"}, "patch": 32, "gpu": "h100_sxm",
        "interconnect": "nvswitch", "cards": 8, "precision": "amp_bf16", "sharding": "zero3",
        "offload": true, "nodes": 2, "node_link": "roce_200g", "nics_per_node": 2}"#;
    let report = json(&run(&["estimate", "-"], sharded));
    let text = summary(&["summary", "-"], sharded);
    let offloaded = format::bytes(f(&report["memory"]["offloaded_to_host"]));
    assert!(line(&text, S::Offloaded.get(Lang::En)).ends_with(&offloaded));
    let buffers = format::bytes(f(&report["memory"]["sharding_buffers"]));
    assert!(line(&text, T::TermShardingBuffers.get(Lang::En)).contains(&buffers));
    assert!(text.contains("2 × 8 × H100"), "{text}");
    // The scaling table names the sharding, not plain DDP.
    assert!(text.contains("Scaling over cards: ZeRO-3, "), "{text}");
    assert!(
        line(&text, "2 (").contains(S::ThisScenario.get(Lang::En)),
        "{text}"
    );

    let too_big = r#"{"batch_per_gpu": 8192}"#;
    for (lang, code) in LANGS {
        let text = summary(&["summary", "--lang", code, "-"], too_big);
        for words in page_words(too_big, lang) {
            assert!(
                squash(&text).contains(&squash(&words)),
                "{words}\nmissing in\n{text}"
            );
        }
    }
    let text = summary(&["summary", "-"], too_big);
    assert!(text.contains("Does not fit on RTX A5500"), "{text}");
    // The scenario line groups digits as the rest of the summary does.
    assert!(
        squash(&text).contains(&squash("Batch per GPU 8,192")),
        "{text}"
    );
}

#[test]
fn summary_errors_are_estimates_errors() {
    for input in [
        "{\"batch_per_gpu\": 0}",
        "{\"gpu\": \"gtx_480\"}",
        "{\"colour\": 1}",
        "[1, 2]",
    ] {
        let estimate = one_line_error(&run(&["estimate", "-"], input));
        for code in ["en", "zh"] {
            assert_eq!(
                one_line_error(&run(&["summary", "--lang", code, "-"], input)),
                estimate
            );
        }
    }
    for (args, says) in [
        (
            vec!["summary", "--lang", "fr", "-"],
            "--lang: got 'fr'; allowed: en, zh",
        ),
        (vec!["summary", "--colour", "-"], "--colour: unknown option"),
        (vec!["summary"], "a file is needed"),
        (vec!["summary", "a.json", "b.json"], "b.json: one file only"),
        (vec!["summary", "/no/such/file.json"], "/no/such/file.json"),
        (
            vec!["options", "--lang", "zh", "-"],
            "allowed only with --summary",
        ),
    ] {
        let error = one_line_error(&run(&args, "{}"));
        assert!(error.contains(says), "{args:?}: {error}");
    }
}

#[test]
fn options_summary_is_the_comparison_with_its_recommendation() {
    let out = json(&run(&["options", "-"], "{}"));
    let options = out["report"]["options"].as_array().unwrap();
    let recommended = out["report"]["decision"]["recommended"].as_u64().unwrap() as usize;
    let label = |i: usize| options[i]["label"].as_str().unwrap();
    for (lang, code) in LANGS {
        let text = summary(&["options", "--summary", "--lang", code, "-"], "{}");
        let said = line(&text, C::Recommended.get(lang));
        assert!(said.contains(label(recommended)), "{said}");
        for (i, o) in options.iter().enumerate() {
            // The option's rows (table rows sit two spaces in; wrapped sentences deeper).
            let rows: Vec<&str> = text
                .lines()
                .filter(|l| l.starts_with(&format!("  {}", label(i))))
                .collect();
            assert_eq!(
                rows.len(),
                4,
                "memory, speed, cost and lever rows of {}",
                label(i)
            );
            let row = out["report"]["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["metric"] == "samples_per_s")
                .unwrap();
            // Its samples/s in the speed table, ★ where the JSON marks it best.
            if let Some(v) = row["values"][i].as_f64() {
                let star = row["best"].as_array().unwrap().iter().any(|b| b == i);
                let cell = format!("{}{}", format::si(v, "/s"), if star { " ★" } else { "" });
                assert!(rows[1].contains(&cell), "{cell} in {}", rows[1]);
            }
            let fits = if o["result"]["fits"] == true {
                C::Fits
            } else {
                C::DoesNotFit
            };
            assert!(rows[0].contains(fits.get(lang)), "{}", rows[0]);
        }
        assert!(text.contains(C::LeverRows.get(lang)));
    }
    let bad = run(&["options", "--summary", "-"], r#"{"options": []}"#);
    let plain = run(&["options", "-"], r#"{"options": []}"#);
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(bad.stderr, plain.stderr);
}

#[test]
fn a_reader_that_stops_early_is_no_failure() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    // `hsi-gpu summary - | head`: the pipe is closed before the summary is written.
    let mut child = Command::new(env!("CARGO_BIN_EXE_hsi-gpu"))
        .args(["summary", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.stdin.take().unwrap().write_all(b"{}").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_summary_shows_tensor_and_pipeline_parallelism_stage_by_stage() {
    let scenario = r#"{"model": {"kind": "preset", "id": "vit", "size": "large"}, "patch": 32,
        "gpu": "h100_sxm", "interconnect": "nvswitch", "cards": 8, "precision": "amp_bf16",
        "tensor_parallel": 2, "pipeline_parallel": 2, "micro_batches": 8, "cudnn_benchmark": true}"#;
    let report = json(&run(&["estimate", "-"], scenario));
    let p = &report["parallel"];
    for (lang, code) in LANGS {
        let text = summary(&["summary", "--lang", code, "-"], scenario);
        assert!(text.contains("cudnn.benchmark = True"), "{text}");
        let layout = line(&text, T::Layout.get(lang));
        assert!(layout.contains("TP 2 × PP 2 × DP 2"), "{layout}");
        assert!(squash(&text).contains(&squash(&format::percent(f(&p["bubble_fraction"])))));
        let stages = p["stages"].as_array().unwrap();
        assert_eq!(stages.len(), 2);
        for (i, stage) in stages.iter().enumerate() {
            let row = line(&text, &format!("{} ", i + 1));
            let first = stage["first_layer"].as_str().unwrap();
            assert!(row.contains(first), "{row}");
            assert!(
                row.contains(&format::bytes(f(&stage["memory"]["total"]))),
                "{row}"
            );
            assert!(
                row.ends_with(&format::percent(f(&stage["idle_fraction"]))),
                "{row}"
            );
        }
    }
    let plain = summary(&["summary", "-"], "{}");
    assert!(
        !plain.contains(T::Layout.get(Lang::En)),
        "no layout without model parallelism"
    );
}

/// An option whose cards do not fit one workstation says why, in both languages: the
/// recommendation does not weigh the chassis.
#[test]
fn options_summary_names_a_box_the_cards_do_not_fit() {
    let comparison = r#"{"options": [
        {"label": "8x4090", "scenario": {"gpu": "rtx_4090", "cards": 8}},
        {"label": "1xA6000", "scenario": {"gpu": "rtx_a6000"}}]}"#;
    let out = json(&run(&["options", "-"], comparison));
    let issues = &out["report"]["options"][0]["result"]["complexity"]["chassis"]["issues"];
    assert!(issues.as_array().is_some_and(|i| !i.is_empty()), "{issues}");
    for (lang, code) in LANGS {
        let text = summary(&["options", "--summary", "--lang", code, "-"], comparison);
        let remark = line(&text, "- 8x4090");
        assert!(remark.contains(X::ChassisTooWide.get(lang)), "{remark}");
        assert!(
            remark.contains(X::ChassisTooMuchPower.get(lang)),
            "{remark}"
        );
        assert!(!text.contains(&format!("1xA6000: {}", X::ChassisFits.get(lang))));
    }
}

/// With tensor parallelism the scenario's row reads the all-reduce share the page's speed
/// tile does (the tensor-parallel all-reduces included), not the data-parallel one alone.
#[test]
fn the_scenarios_scaling_row_counts_tensor_parallel_all_reduces() {
    let vit = r#"{"model": {"kind": "preset", "id": "vit", "size": "giant"}, "patch": 64,
        "gpu": "a100_80_sxm", "cards": 8, "interconnect": "nvswitch", "tensor_parallel": 4,
        "pipeline_parallel": 2, "micro_batches": 4, "precision": "amp_bf16"}"#;
    let report = json(&run(&["estimate", "-"], vit));
    let share = f(&report["perf"]["time"]["allreduce_share"]);
    assert!(share > 0.01, "{share}");
    let text = summary(&["summary", "-"], vit);
    let row = line(&text, "8 (this scenario)");
    assert!(row.ends_with(&format::percent(share)), "{row}");
}

/// Money in the options' currency, as the page shows it: a comparison built in yuan
/// writes its TCO in yuan (the QA case: the dashboard in ¥, the comparison in $).
#[test]
fn options_summary_writes_money_in_the_options_currency() {
    let options = |currency: &str| {
        format!(
            r#"{{"options": [{{"label": "A6000", "scenario": {{"gpu": "rtx_a6000", "cost": {{"currency": "{currency}"}}}}}}]}}"#
        )
    };
    let out = json(&run(&["options", "-"], &options("cny")));
    let tco = out["report"]["options"][0]["result"]["tco_usd"]
        .as_f64()
        .unwrap();
    let yuan = format::money_cny(tco * 7.1);
    for (_, code) in LANGS {
        let text = summary(
            &["options", "--summary", "--lang", code, "-"],
            &options("cny"),
        );
        assert!(
            text.contains(&yuan) && !text.contains('$'),
            "{yuan} in\n{text}"
        );
        let text = summary(
            &["options", "--summary", "--lang", code, "-"],
            &options("usd"),
        );
        assert!(text.contains(&format::money(tco)), "{text}");
    }
}

/// Chinese text punctuates in Chinese: the scaling title's list has a full-width comma.
#[test]
fn the_chinese_summary_uses_chinese_commas() {
    let zh = summary(&["summary", "--lang", "zh", "-"], "{}");
    let title = line(&zh, T::Scaling.get(Lang::Zh));
    assert!(title.contains("DDP，") && !title.contains(", "), "{title}");
    let en = summary(&["summary", "-"], "{}");
    assert!(line(&en, T::Scaling.get(Lang::En)).contains("DDP, "));
}

#[test]
fn the_summary_names_the_catalog_figures_without_a_primary_source_as_the_page_does() {
    // The RTX A5500's FP16 rate, NVLink support and launch price are not from a datasheet.
    let s = scenario_from_json("{}").unwrap();
    for (lang, code) in LANGS {
        let said = hsi_gpu_i18n::unverified_caution(&s, lang).unwrap();
        assert!(said.starts_with(T::Unverified.get(lang)), "{said}");
        let text = squash(&summary(&["summary", "--lang", code, "-"], "{}"));
        assert!(text.contains(&squash(&said)), "{said}: {text}");
    }
    // A card with every figure sourced says nothing of it.
    let text = summary(&["summary", "-"], r#"{"gpu": "rtx_4090"}"#);
    assert!(!text.contains(T::Unverified.get(Lang::En)), "{text}");
}
