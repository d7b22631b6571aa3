//! The device constants refitted on the fit points of fixtures/published_steps.json
//! (ignored: run by hand after a change to the device model). A deterministic coordinate
//! descent moves the constants `FITTED` lists on the fit points alone (`FIT_ONLY` limits
//! it to some) and prints them and the error tables `published_steps.rs` prints at the
//! defaults.

use common::published_steps::{cases, estimate, report, rows, Case};
use hsi_gpu_core::assumptions::PerfAssumptions;

mod common;

/// The constants the fit moves, with the range each may take.
type Field = (&'static str, fn(&mut PerfAssumptions) -> &mut f64, f64, f64);

const FITTED: [Field; 15] = [
    (
        "compute_efficiency",
        |a| &mut a.compute_efficiency,
        0.2,
        0.9,
    ),
    ("memory_efficiency", |a| &mut a.memory_efficiency, 0.5, 0.95),
    (
        "conv_efficiency",
        |a| &mut a.device.conv_efficiency,
        0.1,
        1.0,
    ),
    (
        "fp32_conv_efficiency",
        |a| &mut a.device.fp32_conv_efficiency,
        0.2,
        1.0,
    ),
    (
        "conv3d_tensor_factor",
        |a| &mut a.device.conv3d_tensor_factor,
        0.05,
        1.0,
    ),
    (
        "conv3d_fp32_factor",
        |a| &mut a.device.conv3d_fp32_factor,
        0.1,
        1.0,
    ),
    (
        "grouped_efficiency",
        |a| &mut a.device.grouped_efficiency,
        0.01,
        1.0,
    ),
    (
        "grouped_depth_half",
        |a| &mut a.device.grouped_depth_half,
        1.0,
        1000.0,
    ),
    (
        "grouped_channels_half",
        |a| &mut a.device.grouped_channels_half,
        1.0,
        1000.0,
    ),
    ("norm_passes", |a| &mut a.device.norm_passes, 1.0, 3.0),
    ("conv_traffic", |a| &mut a.device.conv_traffic, 1.0, 4.0),
    (
        "transpose_passes",
        |a| &mut a.device.transpose_passes,
        0.0,
        6.0,
    ),
    (
        "attention_score_passes",
        |a| &mut a.device.attention_score_passes,
        4.0,
        64.0,
    ),
    ("l2_speedup", |a| &mut a.device.l2_speedup, 1.0, 5.0),
    (
        "memory_issue_per_kib",
        |a| &mut a.device.memory_issue_per_kib,
        0.0,
        10000.0,
    ),
];

/// Mean |ln(estimate / measurement)| over the fit points.
fn fit_loss(cases: &[Case], a: &PerfAssumptions) -> f64 {
    let fit: Vec<f64> = cases
        .iter()
        .filter(|c| c.point.split == "fit")
        .map(|c| (estimate(c, a).0 / c.point.measured_step_s()).ln().abs())
        .collect();
    fit.iter().sum::<f64>() / fit.len() as f64
}

/// Deterministic coordinate descent over `FITTED` on the fit points only. Run with
/// `cargo test -p hsi-gpu-core --test published_steps_fit -- --ignored --nocapture`; copy
/// the printed constants into `DeviceAssumptions::default` (core/src/assumptions.rs).
/// `FIT_ONLY=name,name` refits those constants alone, the others as they are.
#[test]
#[ignore]
fn fit_device_constants() {
    let cases = cases();
    let only = std::env::var("FIT_ONLY").ok();
    let fitted = |name: &str| {
        only.as_ref()
            .is_none_or(|o| o.split(',').any(|n| n == name))
    };
    let mut a = PerfAssumptions::default();
    let mut best = fit_loss(&cases, &a);
    println!("loss at the defaults {best:.4}");
    for round in 0..5 {
        for (name, field, lo, hi) in FITTED.into_iter().filter(|f| fitted(f.0)) {
            let start = *field(&mut a);
            for factor in [0.6, 0.75, 0.9, 0.95, 1.05, 1.1, 1.3, 1.6] {
                let mut trial = a.clone();
                *field(&mut trial) = (start * factor).clamp(lo, hi);
                let loss = fit_loss(&cases, &trial);
                if loss < best - 1e-6 {
                    best = loss;
                    a = trial;
                }
            }
            println!(
                "round {round} {name:<24} {:.4}  loss {best:.4}",
                *field(&mut a)
            );
        }
    }
    report(&rows(&cases, &a));
}
