//! Calibration: the scenario's overridable constants fitted to measurements of it.

use serde::Serialize;

use super::compare::{compare, measured_scenario, same_card, PredictedVsMeasured};
use super::Measurement;
use crate::estimate;
use crate::perf::PerfAssumptions;
use crate::problems::FieldError;
use crate::scenario::Scenario;

/// One constant `calibrate` changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fitted {
    /// Scenario field path, e.g. `memory.cuda_context_bytes`.
    pub field: String,
    pub before: f64,
    pub after: f64,
    /// Measurements the value comes from.
    pub measurements: usize,
    pub how: String,
}

/// A constant `calibrate` left alone, for want of the figure it needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NotFitted {
    /// Scenario field path.
    pub field: String,
    /// What the measurements lack.
    pub why: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CalibrationReport {
    pub fitted: Vec<Fitted>,
    pub not_fitted: Vec<NotFitted>,
    /// Each measurement compared with the scenario before and after calibration.
    pub before: Vec<PredictedVsMeasured>,
    pub after: Vec<PredictedVsMeasured>,
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    crate::order::insertion_sort_by(&mut values, |a, b| a.total_cmp(b).is_gt());
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    }
}

/// Bounds the speed factor search (a card 1000x slower or faster than modelled).
const SPEED_FACTOR_RANGE: (f64, f64) = (1e-3, 1e3);

/// Significant digits kept in fitted factors: far below measurement noise, and short
/// decimals read back from JSON exactly.
const FITTED_DIGITS: i32 = 6;

/// `x` rounded to `FITTED_DIGITS` significant digits.
fn rounded(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let decimals = FITTED_DIGITS - 1 - x.abs().log10().floor() as i32;
    let scale = 10f64.powi(decimals.abs());
    if decimals >= 0 {
        (x * scale).round() / scale
    } else {
        (x / scale).round() * scale
    }
}

/// How the speed factor scales a constant: an efficiency (a rate) is divided by it, a
/// time (the device's least kernel time, the host's costs) multiplied.
#[derive(Clone, Copy)]
enum Scaled {
    Rate,
    Time,
}

/// A constant the speed factor scales: its field, where it sits in the assumptions, its
/// scaling and the upper end of its range.
type SpeedTerm = (
    &'static str,
    fn(&mut PerfAssumptions) -> &mut f64,
    Scaled,
    f64,
);

/// The constants the speed factor scales (see `scaled_perf`), each kept within its range.
const SPEED_TERMS: [SpeedTerm; 13] = [
    (
        "perf.compute_efficiency",
        |p| &mut p.compute_efficiency,
        Scaled::Rate,
        1.0,
    ),
    (
        "perf.memory_efficiency",
        |p| &mut p.memory_efficiency,
        Scaled::Rate,
        1.0,
    ),
    (
        "perf.kernel_launch_s",
        |p| &mut p.kernel_launch_s,
        Scaled::Time,
        1e-2,
    ),
    (
        "perf.device.conv_efficiency",
        |p| &mut p.device.conv_efficiency,
        Scaled::Rate,
        1.0,
    ),
    // Winograd and FFT kernels beat the direct-convolution count this is measured in.
    (
        "perf.device.fp32_conv_efficiency",
        |p| &mut p.device.fp32_conv_efficiency,
        Scaled::Rate,
        4.0,
    ),
    (
        "perf.device.grouped_efficiency",
        |p| &mut p.device.grouped_efficiency,
        Scaled::Rate,
        1.0,
    ),
    (
        "perf.cudnn.lowered_rate_fp32",
        |p| &mut p.cudnn.lowered_rate_fp32,
        Scaled::Rate,
        10.0,
    ),
    (
        "perf.cudnn.lowered_rate_tensor",
        |p| &mut p.cudnn.lowered_rate_tensor,
        Scaled::Rate,
        10.0,
    ),
    (
        "perf.host.op_forward_s",
        |p| &mut p.host.op_forward_s,
        Scaled::Time,
        1e-2,
    ),
    (
        "perf.host.op_backward_s",
        |p| &mut p.host.op_backward_s,
        Scaled::Time,
        1e-2,
    ),
    (
        "perf.host.optimizer_op_s",
        |p| &mut p.host.optimizer_op_s,
        Scaled::Time,
        1e-2,
    ),
    (
        "perf.host.foreach_tensor_s",
        |p| &mut p.host.foreach_tensor_s,
        Scaled::Time,
        1e-2,
    ),
    (
        "perf.host.step_fixed_s",
        |p| &mut p.host.step_fixed_s,
        Scaled::Time,
        1.0,
    ),
];

/// `a` with every time term scaled by `factor` (`SPEED_TERMS`).
fn scaled_perf(a: &PerfAssumptions, factor: f64) -> PerfAssumptions {
    let mut out = a.clone();
    for (_, value, scaled, hi) in SPEED_TERMS {
        let x = value(&mut out);
        *x = rounded(match scaled {
            Scaled::Rate => (*x / factor).clamp(0.01, hi),
            Scaled::Time => (*x * factor).clamp(0.0, hi),
        });
    }
    out
}

/// Fits the scenario's overridable constants to measurements of it and returns the
/// updated scenario:
/// - `memory.cuda_context_bytes`: median of the measured context;
/// - `memory.fragmentation` (the least allocator overhead `memory.rs` counts): sum of
///   (reserved - allocated) over the sum of the estimate's activations + transient;
/// - `memory.driver_reserved_bytes`: catalog memory - what CUDA reports as total, when
///   the measured card is the scenario's;
/// - perf: one speed factor shared by the device's and the host's terms (the
///   efficiencies divided by it, `kernel_launch_s` and the host's costs per op
///   multiplied: `SPEED_TERMS`), chosen so the geometric mean of predicted / measured
///   step time is 1.
///   With measurements that differ in what limits them a per-term fit would be
///   possible; one factor is what a few measurements support. Only step times measured
///   on the scenario's card count (or from files that name no card).
///
/// Dry runs carry no CUDA figures and are skipped. An error names the measurement.
pub fn calibrate(
    s: &Scenario,
    measurements: &[Measurement],
) -> Result<(Scenario, CalibrationReport), FieldError> {
    let invalid = |i: usize, e: &FieldError| FieldError {
        field: format!("measurements[{i}].{}", e.field),
        value: e.value.clone(),
        allowed: e.allowed.clone(),
    };
    let mut before = Vec::new();
    let mut cases = Vec::new(); // (measurement, the scenario as measured)
    for (i, m) in measurements.iter().enumerate() {
        if let Some(e) = m.validate().first() {
            return Err(invalid(i, e));
        }
        before.push(compare(s, m).map_err(|errors| invalid(i, &errors[0]))?);
        if !m.dry_run {
            cases.push((m, measured_scenario(s, m).0));
        }
    }
    if cases.is_empty() {
        return Err(FieldError {
            field: "measurements".into(),
            value: format!(
                "{} measurement(s), none from a CUDA card",
                measurements.len()
            ),
            allowed:
                "at least one measurement from a CUDA card (tools/measure.py without --dry-run)"
                    .into(),
        });
    }
    let gpu = &crate::market::scenario_card(s).expect("compare checked the GPU id");
    let mut out = s.clone();
    let mut fitted = Vec::new();
    let mut not_fitted = Vec::new();

    let contexts: Vec<f64> = cases.iter().filter_map(|(m, _)| m.context_bytes).collect();
    let count = contexts.len();
    match median(contexts) {
        Some(context) => {
            out.memory.cuda_context_bytes = Some(context.round() as u64);
            fitted.push(Fitted {
                field: "memory.cuda_context_bytes".into(),
                before: crate::memory::cuda_context(s, gpu),
                after: context.round(),
                measurements: count,
                how: "median of the measured context (device used - reserved)".into(),
            });
        }
        None => not_fitted.push(NotFitted {
            field: "memory.cuda_context_bytes".into(),
            why: "no measured context".into(),
        }),
    }

    let mut overhead = 0.0;
    let mut base = 0.0;
    let mut modelled = 0.0;
    let mut used = 0;
    for (m, scenario) in &cases {
        if let (Some(allocated), Some(reserved)) = (m.peak_allocated_bytes, m.peak_reserved_bytes) {
            let memory = estimate(scenario).map_err(|e| e[0].clone())?.memory;
            overhead += reserved - allocated;
            base += memory.activations + memory.transient;
            modelled += memory.allocator;
            used += 1;
        }
    }
    // The share is a floor under the simulated allocator's cache: where the simulation
    // already holds as much as was measured, no share changes the estimate.
    if used > 0 && overhead <= modelled {
        not_fitted.push(NotFitted {
            field: "memory.fragmentation".into(),
            why: "the simulated caching allocator already holds at least the measured reserved - allocated".into(),
        });
    } else if used > 0 && base > 0.0 {
        let fragmentation = rounded((overhead / base).clamp(0.0, 1.0));
        out.memory.fragmentation = fragmentation;
        fitted.push(Fitted {
            field: "memory.fragmentation".into(),
            before: s.memory.fragmentation,
            after: fragmentation,
            measurements: used,
            how: "sum of (reserved - allocated) / sum of estimated activations + transient, within 0..1, 6 significant digits".into(),
        });
    } else {
        not_fitted.push(NotFitted {
            field: "memory.fragmentation".into(),
            why: "no measurement with both allocated and reserved peaks".into(),
        });
    }

    // Measured on the scenario's card (None: the file names no card).
    let on_this_card =
        |m: &Measurement| -> Option<bool> { Some(same_card(gpu, m.device.gpu_name.as_deref()?)) };
    let totals: Vec<f64> = cases
        .iter()
        .filter(|(m, _)| on_this_card(m) == Some(true))
        .filter_map(|(m, _)| m.device.total_memory_bytes.map(|t| t as f64))
        .collect();
    let count = totals.len();
    match median(totals) {
        Some(total) => {
            out.memory.driver_reserved_bytes = (gpu.memory_bytes as f64 - total).max(0.0) as u64;
            fitted.push(Fitted {
                field: "memory.driver_reserved_bytes".into(),
                before: s.memory.driver_reserved_bytes as f64,
                after: out.memory.driver_reserved_bytes as f64,
                measurements: count,
                how: format!(
                    "catalog memory of the {} minus the total CUDA reports (0 if CUDA reports more)",
                    gpu.name
                ),
            });
        }
        None => not_fitted.push(NotFitted {
            field: "memory.driver_reserved_bytes".into(),
            why: format!("no measurement of a {} with its total memory", gpu.name),
        }),
    }

    // Step times say how fast this card runs, so another card's are left out.
    let timed: Vec<(&Scenario, f64)> = cases
        .iter()
        .filter(|(m, _)| on_this_card(m) != Some(false))
        .filter_map(|(m, scenario)| m.step_time_s.map(|t| (scenario, t)))
        .collect();
    if timed.is_empty() {
        not_fitted.extend(SPEED_TERMS.map(|(field, ..)| NotFitted {
            field: field.into(),
            why: format!("no step time measured on a {}", gpu.name),
        }));
    } else {
        // Mean log ratio predicted / measured; non-decreasing in the factor.
        let log_error = |factor: f64| -> Result<f64, FieldError> {
            let perf = scaled_perf(&s.perf, factor);
            let mut sum = 0.0;
            for (scenario, measured) in &timed {
                let mut scenario = (*scenario).clone();
                scenario.perf = perf.clone();
                let predicted = estimate(&scenario)
                    .map_err(|e| e[0].clone())?
                    .perf
                    .time
                    .step_s;
                sum += (predicted / measured).ln();
            }
            Ok(sum / timed.len() as f64)
        };
        let (mut lo, mut hi) = (SPEED_FACTOR_RANGE.0.ln(), SPEED_FACTOR_RANGE.1.ln());
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if log_error(mid.exp())? < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let factor = (0.5 * (lo + hi)).exp();
        out.perf = scaled_perf(&s.perf, factor);
        let how = format!(
            "one speed factor {factor:.4} over {} timed measurement(s): efficiencies / factor, launch floor x factor, within the allowed ranges, 6 significant digits",
            timed.len()
        );
        // Every constant the factor changed: the table lists them all (it once listed the
        // first three of thirteen).
        let (mut old, mut new) = (s.perf.clone(), out.perf.clone());
        for (field, value, ..) in SPEED_TERMS {
            fitted.push(Fitted {
                field: field.into(),
                before: *value(&mut old),
                after: *value(&mut new),
                measurements: timed.len(),
                how: how.clone(),
            });
        }
    }

    let after = measurements
        .iter()
        .map(|m| compare(&out, m).map_err(|e| e[0].clone()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((
        out,
        CalibrationReport {
            fitted,
            not_fitted,
            before,
            after,
        },
    ))
}
