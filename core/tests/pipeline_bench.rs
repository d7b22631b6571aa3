//! The input pipeline's worker hand-over against `tools/bench_pipeline.py`'s run on the
//! development machine (`fixtures/pipeline_bench.json`: 2 shared cloud cores, torch
//! 2.14, 2026-12-07). The hand-over's three constants are timed apart, each side as its
//! thread's CPU time; what a DataLoader with 0-4 workers then delivers end to end is the
//! held-out check.

use hsi_gpu_core::json::FromJson;
use hsi_gpu_core::pipeline::{input_time, InputWork, Pipeline, PipelineAssumptions};
use serde_json::Value;

fn bench() -> Value {
    serde_json::from_str(include_str!("fixtures/pipeline_bench.json")).unwrap()
}

fn constant(b: &Value, name: &str) -> f64 {
    b["constants"][name].as_f64().unwrap()
}

/// Least-squares (intercept, slope).
fn fit_line(points: &[(f64, f64)]) -> (f64, f64) {
    let n = points.len() as f64;
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(x, y), p| (x + p.0 / n, y + p.1 / n));
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    (my - sxy / sxx * mx, sxy / sxx)
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs()
}

/// The defaults are the bench's constants (to two figures), and those are the lines
/// through its hand-over rows.
#[test]
fn the_hand_over_defaults_are_the_benchs_measurements() {
    let b = bench();
    let rows = b["handovers"].as_array().unwrap();
    let points = |y: &dyn Fn(&Value) -> f64| -> Vec<(f64, f64)> {
        rows.iter()
            .map(|r| (r["batch_bytes"].as_f64().unwrap(), y(r)))
            .collect()
    };
    let s = |r: &Value, k: &str| r[k].as_f64().unwrap();
    let (receive0, receive_byte) = fit_line(&points(&|r| s(r, "main_receive_s")));
    let (_, shared_byte) = fit_line(&points(&|r| {
        s(r, "collate_worker_s") - s(r, "collate_main_s")
    }));
    let d = PipelineAssumptions::default();
    for (name, fitted, default) in [
        ("batch_s", receive0, d.batch_s),
        ("worker_byte_s", receive_byte, d.worker_byte_s),
        ("shared_byte_s", shared_byte, d.shared_byte_s),
    ] {
        assert!(
            close(constant(&b, name), fitted, 1e-6),
            "{name}: the bench's fit"
        );
        assert!(
            close(default, fitted, 0.025),
            "{name}: {default} against {fitted}"
        );
    }
}

/// Augmentation (random flips and a rotation of the cut window) costs per sample, not
/// per byte: the window is copied once either way. The defaults are the line through the
/// bench's augmented-less-plain times (9.4-24 us a sample over 10-500 kB patches).
#[test]
fn the_augmentation_defaults_are_the_benchs_line() {
    let b = bench();
    let points: Vec<(f64, f64)> = b["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let s = |k: &str| p[k].as_f64().unwrap();
            (s("sample_bytes"), s("cut_augmented_s") - s("cut_s"))
        })
        .collect();
    let (per_sample, per_byte) = fit_line(&points);
    let d = PipelineAssumptions::default();
    assert!(close(d.augment_sample_s, per_sample, 0.025), "{per_sample}");
    assert!(close(d.augment_byte_s, per_byte, 0.05), "{per_byte}");
}

/// Samples per second the model gives the bench's DataLoader (cut 13 x 13 x 200 patches,
/// batch 64, no copy to a GPU) with its constants, on its 2 cores: the main process has
/// one, the workers the other.
fn modelled(b: &Value, workers: u32) -> f64 {
    // The bench names its constants as the scenario does: the scenario's reader takes them.
    let mut a = PipelineAssumptions::default();
    a.read_into(&b["constants"]).unwrap();
    let work = InputWork {
        batch: b["batch"].as_u64().unwrap() as u32,
        sample_bytes: 13.0 * 13.0 * 200.0 * 4.0,
        op_s: 0.0,
        single_thread: 1.0,
        spare_cores: b["cores"].as_u64().unwrap() as u32 - 1,
        pcie_bytes_per_s: f64::INFINITY,
    };
    let pipeline = Pipeline {
        precut: false,
        num_workers: workers,
        ..Pipeline::default()
    };
    input_time(&work, &pipeline, &a).samples_per_s
}

/// No worker and one: within 15 %. One worker is a third as fast as none there, as
/// measured: its collate into shared memory costs more than the cutting it takes off
/// the main process. With two or four workers the model gives the one spare core to
/// one worker, but the main process mostly waits, so the workers get more of the two
/// cores than that: the model is slower than measured there (the safe side).
#[test]
fn the_dataloader_delivers_what_the_model_says_on_two_cores() {
    let b = bench();
    let mut rates = Vec::new();
    for row in b["workers"].as_array().unwrap() {
        let workers = row["num_workers"].as_u64().unwrap() as u32;
        let measured = row["samples_per_s"].as_f64().unwrap();
        let model = modelled(&b, workers);
        println!(
            "{workers} workers: measured {measured:.0}/s, model {model:.0}/s ({:+.0} %)",
            (model / measured - 1.0) * 100.0
        );
        if workers <= 1 {
            assert!(close(model, measured, 0.15), "{workers} workers");
        } else {
            assert!(model < measured, "{workers} workers");
        }
        rates.push(model);
    }
    assert!(rates[1] < 0.5 * rates[0], "one worker slower than none");
}
