//! `hsi-gpu`: the estimator core on the command line.
//!
//! hsi-gpu estimate FILE.json   Scenario JSON (`-` = stdin) -> Report JSON on stdout, with
//!                              the levers and the evaluation / prediction what-ifs
//! hsi-gpu summary [--lang en|zh] FILE.json|-
//!                              the same estimate as text for a terminal (summary/)
//! hsi-gpu presets              GPUs (with ECC, form factor, dated prices), models and
//!                              datasets as JSON
//! hsi-gpu scenario             the default Scenario as JSON (a starting point to edit)
//! hsi-gpu compare SCENARIO.json MEASUREMENT.json
//!                              estimate vs a `tools/measure.py` measurement, term by term
//! hsi-gpu options COMPARISON.json
//!                              {"report": the options side by side (the page's
//!                              comparison), "levers": a row per lever option with each
//!                              option's time to result, speed-up and cost per experiment}
//! hsi-gpu options --summary [--lang en|zh] COMPARISON.json
//!                              the comparison as tables with the recommendation
//! hsi-gpu thesis FILE.json     the thesis map for a Scenario (`-` = stdin): the best lever
//!                              of each zoo model (small HSI CNNs to a 1 B ViT) at each patch
//!                              on the scenario's card and task, the flips, the article's
//!                              claims checked (`core/src/thesis.rs`)
//! hsi-gpu calibrate SCENARIO.json MEASUREMENT.json...
//!                              {"scenario": the scenario with constants fitted to the
//!                              measurements, "report": what was fitted, errors before/after}
//!
//! Bad input exits with status 2 and one line on stderr naming the field.

mod summary;

use std::io::{ErrorKind, Read, Write};
use std::process::ExitCode;

use hsi_gpu_core::compare::compare;
use hsi_gpu_core::compare::import::import_comparison;
use hsi_gpu_core::scenario::scenario_from_json;
use hsi_gpu_core::thesis::thesis_map;
use hsi_gpu_core::whatifs::{compare_levers, estimate_all};
use hsi_gpu_core::{dataset, gpu, market, measurement, zoo, FieldError, Scenario};
use serde_json::json;

const USAGE: &str =
    "usage: hsi-gpu estimate FILE.json|- | hsi-gpu summary [--lang en|zh] FILE.json|- \
                     | hsi-gpu presets | hsi-gpu scenario \
                     | hsi-gpu compare SCENARIO.json MEASUREMENT.json \
                     | hsi-gpu options [--summary [--lang en|zh]] COMPARISON.json \
                     | hsi-gpu thesis FILE.json|- \
                     | hsi-gpu calibrate SCENARIO.json MEASUREMENT.json...";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        // A reader that stops early (`hsi-gpu summary - | head`) closes the pipe: then there
        // is nothing left to say, and no reason to fail.
        Ok(output) => match writeln!(std::io::stdout().lock(), "{output}") {
            Err(e) if e.kind() != ErrorKind::BrokenPipe => {
                eprintln!("hsi-gpu: stdout: {e}");
                ExitCode::FAILURE
            }
            _ => ExitCode::SUCCESS,
        },
        Err(message) => {
            eprintln!("hsi-gpu: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<String, String> {
    let pretty =
        |v: &serde_json::Value| serde_json::to_string_pretty(v).expect("JSON values serialise");
    match args {
        [cmd, path] if cmd == "estimate" => {
            let scenario = scenario_from_json(&read_input(path)?).map_err(|e| said(&e))?;
            let report = estimate_all(&scenario).map_err(|errors| one_line(&errors))?;
            Ok(pretty(
                &serde_json::to_value(report).expect("Report serialises"),
            ))
        }
        [cmd, path] if cmd == "thesis" => {
            let scenario = scenario_from_json(&read_input(path)?).map_err(|e| said(&e))?;
            let map = thesis_map(&scenario).map_err(|errors| one_line(&errors))?;
            Ok(pretty(
                &serde_json::to_value(map).expect("ThesisMap serialises"),
            ))
        }
        [cmd, rest @ ..] if cmd == "summary" => {
            let (lang, path) = summary::parse_args(rest, false)?;
            let scenario = scenario_from_json(&read_input(&path)?).map_err(|e| said(&e))?;
            let report = estimate_all(&scenario).map_err(|errors| one_line(&errors))?;
            Ok(summary::estimate_summary(&scenario, &report, lang))
        }
        [cmd] if cmd == "presets" => Ok(pretty(&presets())),
        [cmd] if cmd == "scenario" => Ok(pretty(
            &serde_json::to_value(Scenario::default()).expect("Scenario serialises"),
        )),
        [cmd, scenario, measurement] if cmd == "compare" => {
            let scenario = read_scenario(scenario)?;
            let comparison = measurement::compare(&scenario, &read_measurement(measurement)?)
                .map_err(|errors| one_line(&errors))?;
            Ok(pretty(
                &serde_json::to_value(comparison).expect("PredictedVsMeasured serialises"),
            ))
        }
        [cmd, rest @ ..] if cmd == "options" && !rest.is_empty() => {
            let summary = rest.iter().any(|a| a.starts_with("--"));
            let (lang, path) = match rest {
                [path] if !summary => (None, path.clone()),
                _ => summary::parse_args(rest, true).map(|(l, p)| (Some(l), p))?,
            };
            let comparison = import_comparison(&read_input(&path)?).map_err(|errors| {
                let lines: Vec<String> = errors
                    .iter()
                    .map(|e| match (e.line, e.column) {
                        (Some(l), Some(c)) => format!("line {l}, column {c}: {}", said(&e.error)),
                        _ => said(&e.error),
                    })
                    .collect();
                lines.join("; ")
            })?;
            let report = compare(&comparison).map_err(|errors| one_line(&errors))?;
            let levers = compare_levers(&comparison);
            Ok(match lang {
                Some(lang) => summary::options_summary(&report, &levers, lang, comparison.money()),
                None => pretty(&json!({"report": report, "levers": levers})),
            })
        }
        [cmd, scenario, measurements @ ..] if cmd == "calibrate" && !measurements.is_empty() => {
            let scenario = read_scenario(scenario)?;
            let measurements = measurements
                .iter()
                .map(|path| read_measurement(path))
                .collect::<Result<Vec<_>, _>>()?;
            let (calibrated, report) =
                measurement::calibrate(&scenario, &measurements).map_err(|e| said(&e))?;
            Ok(pretty(&json!({"scenario": calibrated, "report": report})))
        }
        // Asked for, the usage is an answer (stdout, status 0); otherwise it is the error.
        [flag] if ["--help", "-h", "help"].contains(&flag.as_str()) => Ok(USAGE.into()),
        _ => Err(USAGE.into()),
    }
}

fn read_scenario(path: &str) -> Result<Scenario, String> {
    scenario_from_json(&read_input(path)?).map_err(|e| format!("{path}: {}", said(&e)))
}

fn read_measurement(path: &str) -> Result<measurement::Measurement, String> {
    measurement::measurement_from_json(&read_input(path)?)
        .map_err(|e| format!("{path}: {}", said(&e)))
}

fn read_input(path: &str) -> Result<String, String> {
    let mut text = String::new();
    if path == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("stdin: {e}"))?;
    } else {
        text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    }
    // A byte-order mark (Windows editors write one) is not part of the JSON.
    let text = match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    };
    // A syntax error in serde_json's own words ("expected `,` or `]` at line 2 column 2"):
    // the core names only what stands there, to keep serde_json's messages off the page.
    if let Err(e) = serde_json::from_str::<serde_json::Value>(&text) {
        if e.is_syntax() || e.is_eof() {
            let name = if path == "-" { "stdin" } else { path };
            return Err(format!("{name}: (document): not valid JSON: {e}"));
        }
    }
    Ok(text)
}

/// A field error as the core writes it, with the field or id a typo most likely meant
/// after the value: "bandz: got unknown field `bandz` = 4 (did you mean `bands`?);
/// allowed: ...".
fn said(e: &FieldError) -> String {
    match e.meant() {
        Some(m) => format!(
            "{}: got {} (did you mean `{m}`?); allowed: {}",
            e.field, e.value, e.allowed
        ),
        None => e.to_string(),
    }
}

/// All field errors on one line.
fn one_line(errors: &[FieldError]) -> String {
    errors.iter().map(said).collect::<Vec<_>>().join("; ")
}

fn presets() -> serde_json::Value {
    let models: Vec<_> = zoo::ZOO
        .iter()
        .map(|m| json!({"id": m.id, "name": m.name, "source": m.source, "default_patch": m.default_patch}))
        .collect();
    // Each card's datasheet with its market row: ECC and its cost, form factor, dated prices.
    let gpus: Vec<_> = gpu::GPUS
        .iter()
        .map(|g| {
            let mut card = serde_json::to_value(g).expect("GpuSpec serialises");
            card["market"] =
                serde_json::to_value(market::market_by_id(g.id)).expect("CardMarket serialises");
            card
        })
        .collect();
    json!({
        "gpus": gpus,
        "models": models,
        "datasets": dataset::DATASETS,
    })
}
