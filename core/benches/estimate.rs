//! Benchmark of one full estimate (memory, largest-batch search and the performance
//! model). Run with `cargo bench -p hsi-gpu-core`; prints median and spread over
//! repeated runs (the machine is shared: read medians and ratios, not single timings).

use std::hint::black_box;
use std::time::{Duration, Instant};

use hsi_gpu_core::scenario::{ModelChoice, VitSize};
use hsi_gpu_core::thesis::{cell, grid, thesis_map};
use hsi_gpu_core::whatifs::estimate_all;
use hsi_gpu_core::{estimate, FieldError, Report, Scenario};

fn median_time(label: &str, scenario: &Scenario) {
    median_time_of(label, scenario, estimate);
}

fn median_time_of(
    label: &str,
    scenario: &Scenario,
    estimate: fn(&Scenario) -> Result<Report, Vec<FieldError>>,
) {
    let runs = 101;
    // Enough calls per run to lift the timing above the clock's resolution.
    let calls = 20;
    let mut samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..calls {
                black_box(estimate(black_box(scenario)).expect("valid scenario"));
            }
            start.elapsed() / calls
        })
        .collect();
    samples.sort();
    println!(
        "{label:<40} median {:>9.1?}  p10 {:>9.1?}  p90 {:>9.1?}",
        samples[runs / 2],
        samples[runs / 10],
        samples[runs * 9 / 10]
    );
}

/// The thesis map: the whole map a few times, and its slowest cell (the page computes
/// it cell by cell, so one cell is what a key press may wait behind).
fn thesis_times(label: &str, scenario: &Scenario) {
    let runs = 7;
    let mut samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            black_box(thesis_map(black_box(scenario)).expect("valid scenario"));
            start.elapsed()
        })
        .collect();
    samples.sort();
    let slowest = grid()
        .map(|(m, p)| {
            let start = Instant::now();
            black_box(cell(scenario, m, p));
            (start.elapsed(), m.id, m.size, p)
        })
        .max_by_key(|t| t.0)
        .expect("cells");
    println!(
        "{label:<40} median {:>9.1?}  min {:>9.1?}  max {:>9.1?}; slowest cell {:.1?} ({} {:?} at {} px)",
        samples[runs / 2],
        samples[0],
        samples[runs - 1],
        slowest.0,
        slowest.1,
        slowest.2,
        slowest.3
    );
}

fn main() {
    let default = Scenario::default();
    median_time("estimate: default (HybridSN, 1 card)", &default);
    median_time(
        "estimate: HybridSN, 8 cards",
        &Scenario {
            cards: 8,
            ..default.clone()
        },
    );
    median_time_of(
        "estimate_all: default, with levers, inference",
        &default,
        estimate_all,
    );
    let vit = Scenario {
        model: ModelChoice::Preset {
            id: "vit".into(),
            width: None,
            size: Some(VitSize::Base),
        },
        patch: 64,
        bands: 128,
        ..default
    };
    median_time("estimate: ViT-Base foundation model", &vit);
    median_time_of("estimate_all: ViT-Base", &vit, estimate_all);
    median_time(
        "estimate: ViT-Base, tensor parallel 2",
        &Scenario {
            cards: 2,
            tensor_parallel: 2,
            ..vit.clone()
        },
    );
    median_time(
        "estimate: ViT-Base, 4 stages x 8 micro-batches",
        &Scenario {
            cards: 4,
            pipeline_parallel: 4,
            micro_batches: 8,
            ..vit
        },
    );
    thesis_times("thesis map: default (1 x RTX A5500)", &Scenario::default());
    thesis_times(
        "thesis map: 4 x RTX A5500",
        &Scenario {
            cards: 4,
            ..Scenario::default()
        },
    );
}
