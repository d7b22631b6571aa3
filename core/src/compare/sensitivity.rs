//! What breaks first: the largest patch and band count that still fit an option at its
//! batch (the largest batch is `memory::max_batch`), and a fit map over patch x bands.
//!
//! Memory grows with patch and bands, so each limit is an exponential then a binary
//! search over the memory model. A preset may accept only some values (a U-Net tile
//! must be a multiple of 16, HybridSN needs enough bands for its valid 3-D kernels):
//! the search steps by the smallest increment the preset accepts above the scenario's
//! value, and a value the preset rejects counts as not fitting.

use serde::{Deserialize, Serialize};

use crate::gpu::GpuSpec;
use crate::scenario::{ModelChoice, Scenario, MAX_BANDS, MAX_PATCH};

/// The largest value of a dimension that fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Largest {
    Fits(u32),
    /// Every accepted value up to the input limit fits; this is the largest one.
    UpToLimit(u32),
    /// Not even the smallest value the model accepts fits.
    NoneFits,
    /// A custom model's input fixes the dimension, or the model does not use it (a
    /// pixel-wise model's patch: its input is the same at every patch).
    NotApplicable,
}

impl Largest {
    pub fn value(self) -> Option<u32> {
        match self {
            Largest::Fits(v) | Largest::UpToLimit(v) => Some(v),
            Largest::NoneFits | Largest::NotApplicable => None,
        }
    }
}

/// A geometry input the sensitivity searches vary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    Patch,
    Bands,
}

/// Largest increment tried when looking for the values a preset accepts.
const MAX_GEOMETRY_STEP: u32 = 64;

impl Dimension {
    fn get(self, s: &Scenario) -> u32 {
        match self {
            Dimension::Patch => s.patch,
            Dimension::Bands => s.bands,
        }
    }

    fn limit(self) -> u32 {
        match self {
            Dimension::Patch => MAX_PATCH,
            Dimension::Bands => MAX_BANDS,
        }
    }

    fn with(self, s: &Scenario, value: u32) -> Scenario {
        let mut out = s.clone();
        match self {
            Dimension::Patch => out.patch = value,
            Dimension::Bands => out.bands = value,
        }
        out
    }
}

/// Memory per GPU at the scenario's batch over the memory budget (at most 1 fits);
/// None where the model cannot be built for the scenario's geometry.
pub fn utilization(s: &Scenario, gpu: &GpuSpec) -> Option<f64> {
    let spec = crate::build_model(s).ok()?;
    let total = crate::parallel::memory_total(s, &spec, gpu).ok()?;
    Some(total / crate::memory::budget(s, gpu))
}

fn fits(s: &Scenario, gpu: &GpuSpec) -> Option<bool> {
    utilization(s, gpu).map(|u| u <= 1.0)
}

/// The smallest increment above the scenario's value that the model accepts (1 when
/// none up to `MAX_GEOMETRY_STEP` does, e.g. at the input limit).
pub fn geometry_step(s: &Scenario, gpu: &GpuSpec, dim: Dimension) -> u32 {
    let start = dim.get(s);
    (1..=MAX_GEOMETRY_STEP)
        .take_while(|d| start.saturating_add(*d) <= dim.limit())
        .find(|d| utilization(&dim.with(s, start + d), gpu).is_some())
        .unwrap_or(1)
}

/// Largest `k` in `[lo, hi]` with `ok(k)`, given `ok(lo)` and `!ok(hi)` and `ok` true
/// then false over the range.
fn last_true(mut lo: i64, mut hi: i64, ok: impl Fn(i64) -> bool) -> i64 {
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Largest value of `dim` that fits at the scenario's batch, all else equal.
pub fn largest(s: &Scenario, gpu: &GpuSpec, dim: Dimension) -> Largest {
    if matches!(s.model, ModelChoice::Custom { .. }) {
        return Largest::NotApplicable;
    }
    let start = i64::from(dim.get(s));
    let step = i64::from(geometry_step(s, gpu, dim));
    // Candidates are start + k x step for k in [k_min, k_max], all within 1..=limit.
    let k_min = -((start - 1) / step);
    let k_max = (i64::from(dim.limit()) - start) / step;
    let value = |k: i64| (start + k * step) as u32;
    let check = |k: i64| fits(&dim.with(s, value(k)), gpu);
    let ok = |k: i64| check(k) == Some(true);

    if ok(0) {
        let (mut lo, mut hi) = (0i64, 1i64);
        while hi <= k_max && ok(hi) {
            lo = hi;
            hi *= 2;
        }
        if hi > k_max {
            if ok(k_max) {
                // The same input at the limit as at the scenario's value: unused.
                let input = |k| {
                    crate::build_model(&dim.with(s, value(k)))
                        .ok()
                        .map(|m| m.input)
                };
                if input(k_max) == input(0) {
                    return Largest::NotApplicable;
                }
                return Largest::UpToLimit(value(k_max));
            }
            hi = k_max;
        }
        return Largest::Fits(value(last_true(lo, hi, ok)));
    }
    // The scenario's value does not fit: go down, from the smallest value the model
    // accepts (models accept every large enough value).
    let builds = |k: i64| check(k).is_some();
    let smallest = if builds(k_min) || !builds(0) {
        k_min
    } else {
        last_true(k_min, 0, |k| !builds(k)) + 1
    };
    if !ok(smallest) {
        return Largest::NoneFits;
    }
    Largest::Fits(value(last_true(smallest, 0, ok)))
}

pub fn largest_patch(s: &Scenario, gpu: &GpuSpec) -> Largest {
    largest(s, gpu, Dimension::Patch)
}

pub fn largest_bands(s: &Scenario, gpu: &GpuSpec) -> Largest {
    largest(s, gpu, Dimension::Bands)
}

/// Fit over patch x bands at the scenario's batch on one card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitGrid {
    pub patches: Vec<u32>,
    pub bands: Vec<u32>,
    /// `cells[i][j]`: memory / budget at `patches[i]`, `bands[j]` (at most 1 fits);
    /// None where the model has no such geometry.
    pub cells: Vec<Vec<Option<f64>>>,
}

pub fn fit_grid(s: &Scenario, gpu: &GpuSpec, patches: &[u32], bands: &[u32]) -> FitGrid {
    let cells = patches
        .iter()
        .map(|&p| {
            let at_patch = Dimension::Patch.with(s, p);
            bands
                .iter()
                .map(|&b| utilization(&Dimension::Bands.with(&at_patch, b), gpu))
                .collect()
        })
        .collect();
    FitGrid {
        patches: patches.to_vec(),
        bands: bands.to_vec(),
        cells,
    }
}

/// Points on each axis of the default fit map (plus the scenario's own value).
const AXIS_POINTS: u32 = 8;
/// How far past the largest fitting value the default map reaches, so that the boundary
/// is on it.
const AXIS_BEYOND_LARGEST: f64 = 1.25;

/// Axis values from a quarter of the scenario's value to past the largest value that fits
/// (at least twice the scenario's value), evenly spaced on the grid of values the model
/// accepts, with the scenario's value itself.
pub fn default_axis(s: &Scenario, gpu: &GpuSpec, dim: Dimension) -> Vec<u32> {
    let (value, step_value) = (dim.get(s), geometry_step(s, gpu, dim));
    let (start, step) = (f64::from(value), f64::from(step_value));
    let limit = f64::from(dim.limit());
    let beyond = match largest(s, gpu, dim) {
        Largest::Fits(v) => f64::from(v) * AXIS_BEYOND_LARGEST,
        _ => 0.0,
    };
    let far = beyond.max(2.0 * start).min(limit);
    let near = (start / 4.0).max(1.0);
    // In whole numbers (the step is at least 1): the same remainder without f64's `%`,
    // libm's fmod, which the page has for no other use.
    let base = f64::from(value % step_value);
    let snap = |v: f64| (base + ((v - base) / step).round() * step).clamp(1.0, limit) as u32;
    let last = f64::from(AXIS_POINTS - 1);
    let mut axis: Vec<u32> = (0..AXIS_POINTS)
        .map(|k| snap(near + (far - near) * f64::from(k) / last))
        .chain([value])
        .collect();
    crate::order::insertion_sort(&mut axis);
    axis.dedup();
    axis
}

/// The fit map around the scenario's patch and bands; None for a custom model, whose
/// input fixes both.
pub fn default_fit_grid(s: &Scenario, gpu: &GpuSpec) -> Option<FitGrid> {
    if matches!(s.model, ModelChoice::Custom { .. }) {
        return None;
    }
    let patches = default_axis(s, gpu, Dimension::Patch);
    let bands = default_axis(s, gpu, Dimension::Bands);
    Some(fit_grid(s, gpu, &patches, &bands))
}
