//! HybridSN's largest-batch sweep on the H200 (`measured_h200/zoo.jsonl`: PyTorch's
//! default precision, cudnn.benchmark off, batch 1 to 20,479) against the estimate's
//! allocated peak at every batch the card ran, on both sides of cuDNN's fallback to plans
//! with smaller workspaces (`try_configs` in ATen's `Conv_v8.cpp`), which the estimate
//! does not model (`cudnn.rs`).
//!
//! - Up to 8,192 samples the first-choice plans ran: the estimate with their workspaces
//!   (`perf.cudnn.workspace_*`, fitted on this sweep from 2,048 to 8,192) follows the peak.
//! - Past the batch where the peak fell (19,968: 42 GB less than at 19,456) no workspace
//!   was left in the peak: the estimate of the tensors alone (workspace shares 0), a check
//!   of the activation and gradient accounting at 300 times the steps' batches.
//! - Between the two (16,384 to 19,456) the card ran smaller-workspace plans: its peak lies
//!   between the tensors alone and the first-choice plans' peak.
//!
//! docs/validation.md states each region's figures; a stale one fails the test.

use hsi_gpu_core::estimate;
use hsi_gpu_core::scenario::{scenario_from_json, Scenario};

mod common;

/// The sweep's record and its points that ran: (batch, allocated peak bytes), by batch.
fn sweep() -> (Scenario, Vec<(u32, f64)>) {
    let record = common::h200::records("zoo.jsonl")
        .into_iter()
        .find(|r| {
            r["scenario"]["model"]["id"] == "hybridsn" && r["measurement"]["sweep"].is_array()
        })
        .expect("HybridSN's sweep is in zoo.jsonl");
    let scenario = scenario_from_json(&common::h200::scenario(&record).to_string()).unwrap();
    let mut points: Vec<(u32, f64)> = record["measurement"]["sweep"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["fits"] == true)
        .map(|p| {
            let batch = p["batch"].as_u64().unwrap() as u32;
            (batch, p["peak_allocated_bytes"].as_f64().unwrap())
        })
        .collect();
    points.sort_by_key(|p| p.0);
    (scenario, points)
}

fn allocated_peak(s: &Scenario, batch: u32, workspaces: bool) -> f64 {
    let mut s = s.clone();
    s.batch_per_gpu = batch;
    if !workspaces {
        s.perf.cudnn.workspace_cuda_core = 0.0;
        s.perf.cudnn.workspace_tensor_core = 0.0;
    }
    estimate(&s).unwrap().memory.allocated_peak
}

#[test]
fn hybridsns_sweep_lies_between_the_tensors_alone_and_the_first_choice_plans() {
    let (scenario, points) = sweep();
    // The batch where the peak fell: past it the card held no workspace at its peak.
    let fell = points
        .windows(2)
        .find(|w| w[1].1 < w[0].1)
        .map(|w| w[1].0)
        .expect("the peak falls once");
    assert_eq!(fell, 19_968);
    println!("| batch | measured GB | estimate (first-choice plans) | tensors alone |");
    let mut checked = [0; 3];
    // The figures docs/validation.md states, per region.
    let (mut fitted, mut between, mut past) = (Vec::new(), Vec::new(), Vec::new());
    for &(batch, measured) in &points {
        let with = allocated_peak(&scenario, batch, true);
        let alone = allocated_peak(&scenario, batch, false);
        let pct = |x: f64| (x / measured - 1.0) * 100.0;
        println!(
            "| {batch} | {:.2} | {:+.1} % | {:+.1} % |",
            measured / 1e9,
            pct(with),
            pct(alone)
        );
        if (2_048..=8_192).contains(&batch) {
            assert!(pct(with).abs() < 2.0, "batch {batch}: {:+.1} %", pct(with));
            fitted.push(format!("{:+.1}", pct(with)));
            checked[0] += 1;
        } else if batch > 8_192 && batch < fell {
            assert!(
                alone < measured && measured < with,
                "batch {batch}: {:.1} GB measured, {:.1} to {:.1} estimated",
                measured / 1e9,
                alone / 1e9,
                with / 1e9
            );
            between.push((pct(alone), pct(with)));
            checked[1] += 1;
        } else if batch >= fell {
            // The tensors alone on the safe side and within 3 %.
            assert!(
                (0.0..3.0).contains(&pct(alone)),
                "batch {batch}: tensors alone {:+.2} %",
                pct(alone)
            );
            past.push(format!("{:+.1}", pct(alone)));
            checked[2] += 1;
        }
    }
    assert_eq!(checked, [3, 3, 10], "points per region");
    past.dedup();
    let range = |f: fn(&(f64, f64)) -> f64| {
        let v: Vec<f64> = between.iter().map(f).collect();
        let (lo, hi) = (
            v.iter().copied().fold(f64::MAX, f64::min),
            v.iter().copied().fold(f64::MIN, f64::max),
        );
        format!("{lo:+.0} to {hi:+.0} %")
    };
    let text = common::repo_prose("docs/validation.md");
    for said in [
        format!("({} %;", fitted.join(", ")),
        format!("are {} % at all ten points", past.join("/")),
        format!("between the tensors alone ({})", range(|b| b.0)),
        format!("the first-choice plans ({})", range(|b| b.1)),
    ] {
        assert!(
            text.contains(&said),
            "docs/validation.md should say: {said}"
        );
    }
}
