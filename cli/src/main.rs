//! `hsi-gpu`: the estimator core on the command line.
//!
//! hsi-gpu estimate FILE.json   Scenario JSON (`-` = stdin) -> Report JSON on stdout
//! hsi-gpu presets              GPUs, models and datasets as JSON
//! hsi-gpu scenario             the default Scenario as JSON (a starting point to edit)
//!
//! Bad input exits with status 2 and one line on stderr naming the field.

use std::io::Read;
use std::process::ExitCode;

use hsi_gpu_core::scenario::scenario_from_json;
use hsi_gpu_core::{dataset, estimate, gpu, zoo, FieldError, Scenario};
use serde_json::json;

const USAGE: &str = "usage: hsi-gpu estimate FILE.json|- | hsi-gpu presets | hsi-gpu scenario";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(output) => {
            println!("{output}");
            ExitCode::SUCCESS
        }
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
            let scenario = scenario_from_json(&read_input(path)?).map_err(|e| e.to_string())?;
            let report = estimate(&scenario).map_err(|errors| one_line(&errors))?;
            Ok(pretty(
                &serde_json::to_value(report).expect("Report serialises"),
            ))
        }
        [cmd] if cmd == "presets" => Ok(pretty(&presets())),
        [cmd] if cmd == "scenario" => Ok(pretty(
            &serde_json::to_value(Scenario::default()).expect("Scenario serialises"),
        )),
        _ => Err(USAGE.into()),
    }
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
    Ok(text)
}

/// All field errors on one line.
fn one_line(errors: &[FieldError]) -> String {
    errors
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

fn presets() -> serde_json::Value {
    let models: Vec<_> = zoo::ZOO
        .iter()
        .map(|m| json!({"id": m.id, "name": m.name, "source": m.source, "default_patch": m.default_patch}))
        .collect();
    json!({
        "gpus": gpu::GPUS,
        "models": models,
        "datasets": dataset::DATASETS,
    })
}
