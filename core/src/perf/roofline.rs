//! The roofline of one pass of one layer: its point (FLOPs, bytes, intensity against
//! the ridge) and its modelled time, the longest of compute, memory and launches (see
//! `perf`'s documentation for the formulas).

use serde::{Deserialize, Serialize};

use crate::analysis::LayerReport;
use crate::assumptions::PerfAssumptions;
use crate::gpu::GpuSpec;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    #[default]
    Memory,
    Compute,
}

/// What sets a pass's time in the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limiter {
    #[default]
    Memory,
    Compute,
    Launch,
}

/// A point on the roofline.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Roofline {
    pub flops: f64,
    /// Bytes moved to and from device memory.
    pub bytes: f64,
    /// FLOPs per byte (0 when nothing moves).
    pub intensity: f64,
    /// Compute roof, FLOP/s.
    pub roof_flops: f64,
    /// roof / bandwidth, FLOP/byte.
    pub ridge: f64,
    /// min(roof, intensity x bandwidth).
    pub attainable_flops: f64,
    pub bound: Bound,
}

impl Roofline {
    pub(super) fn new(flops: f64, bytes: f64, roof_flops: f64, bandwidth: f64) -> Self {
        let intensity = if bytes > 0.0 { flops / bytes } else { 0.0 };
        let ridge = roof_flops / bandwidth;
        Roofline {
            flops,
            bytes,
            intensity,
            roof_flops,
            ridge,
            attainable_flops: roof_flops.min(intensity * bandwidth),
            bound: if intensity < ridge {
                Bound::Memory
            } else {
                Bound::Compute
            },
        }
    }
}

/// One pass of one layer: its roofline point and modelled time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PassPerf {
    pub roofline: Roofline,
    /// Fraction of the roof the compute reaches at this work size, (0, compute_efficiency].
    pub efficiency: f64,
    pub kernels: u32,
    pub compute_s: f64,
    pub memory_s: f64,
    pub launch_s: f64,
    /// max(compute, memory, launch).
    pub time_s: f64,
    pub limiter: Limiter,
    /// flops / time (0 when the pass takes no time).
    pub achieved_flops: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LayerPerf {
    pub name: String,
    pub kind: String,
    pub forward: PassPerf,
    pub backward: PassPerf,
}

/// Per-pass inputs.
struct Work {
    flops: f64,
    bytes: f64,
    kernels: u32,
    roof_flops: f64,
}

/// The longest of three times and what it is (memory on ties and when all are zero).
pub(super) fn largest(times: [(f64, Limiter); 3]) -> (f64, Limiter) {
    times
        .into_iter()
        .fold((0.0, Limiter::Memory), |best, (t, l)| {
            if t > best.0 {
                (t, l)
            } else {
                best
            }
        })
}

fn pass(w: &Work, gpu: &GpuSpec, a: &PerfAssumptions) -> PassPerf {
    let bandwidth = gpu.bandwidth_bytes_per_s;
    let ramp_flops = w.roof_flops * a.efficiency_ramp_s;
    let (efficiency, compute_s) = if w.flops > 0.0 {
        (
            a.compute_efficiency * w.flops / (w.flops + ramp_flops),
            (w.flops + ramp_flops) / (w.roof_flops * a.compute_efficiency),
        )
    } else {
        (a.compute_efficiency, 0.0)
    };
    let memory_s = w.bytes / (bandwidth * a.memory_efficiency);
    let launch_s = f64::from(w.kernels) * a.kernel_launch_s;
    let (time_s, limiter) = largest([
        (memory_s, Limiter::Memory),
        (compute_s, Limiter::Compute),
        (launch_s, Limiter::Launch),
    ]);
    PassPerf {
        roofline: Roofline::new(w.flops, w.bytes, w.roof_flops, bandwidth),
        efficiency,
        kernels: w.kernels,
        compute_s,
        memory_s,
        launch_s,
        time_s,
        limiter,
        achieved_flops: if time_s > 0.0 { w.flops / time_s } else { 0.0 },
    }
}

pub(super) fn layer_perf(
    l: &LayerReport,
    peak: f64,
    gpu: &GpuSpec,
    a: &PerfAssumptions,
) -> LayerPerf {
    let roof_flops = if l.tensor_core { peak } else { gpu.fp32_flops };
    // A pass that launches no kernel (a view, or a backward nothing needs) does no work.
    let work = |kernels: u32, flops: f64, bytes: f64| {
        let runs = if kernels > 0 { 1.0 } else { 0.0 };
        Work {
            flops: runs * flops,
            bytes: runs * bytes,
            kernels,
            roof_flops,
        }
    };
    let forward = work(
        l.kernels_fwd,
        l.fwd_flops + l.other_flops,
        l.input_bytes + l.weight_bytes + l.output_bytes,
    );
    let backward = work(
        l.kernels_bwd,
        l.bwd_flops + l.other_flops,
        l.output_bytes + 2.0 * l.input_bytes + 2.0 * l.weight_bytes,
    );
    LayerPerf {
        name: l.name.clone(),
        kind: l.kind.clone(),
        forward: pass(&forward, gpu, a),
        backward: pass(&backward, gpu, a),
    }
}
