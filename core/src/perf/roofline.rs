//! The roofline of one pass of one layer: its point (FLOPs, bytes, intensity against
//! the ridge) and its modelled time, the longest of compute, memory and launches (see
//! `perf`'s documentation for the formulas).

use serde::{Deserialize, Serialize};

use crate::analysis::{LayerReport, OpClass};
use crate::device::{DeviceLayer, DevicePass};
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
    /// The least GPU time per kernel (many tiny kernels).
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
    /// The op class the device model times it by.
    pub class: OpClass,
    pub forward: PassPerf,
    pub backward: PassPerf,
}

/// The longest of three times and what it is (memory on ties and when all are zero).
pub(super) fn largest(times: [(f64, Limiter); 3]) -> (f64, Limiter) {
    crate::steptime::largest(times, Limiter::Memory)
}

/// The device model's pass as the report shows it: its textbook roofline point (each
/// tensor moved once) under `roof_flops` (the precision's unit for conv/linear/matmul,
/// FP32 otherwise: the roofs the page draws), and its modelled time (on the unit the
/// device model picks, which may be CUDA cores where tensor cores are slower).
fn pass_perf(p: &DevicePass, roof_flops: f64, gpu: &GpuSpec) -> PassPerf {
    let (time_s, limiter) = largest([
        (p.memory_s, Limiter::Memory),
        (p.compute_s, Limiter::Compute),
        (p.floor_s, Limiter::Launch),
    ]);
    // A kernel too small to fill the card takes its least time: no faster unit would
    // shorten it, so it is limited as a launch is (a ReLU or a tiny GEMM).
    let limiter = if limiter == Limiter::Compute && 2.0 * p.ramp_s >= p.compute_s {
        Limiter::Launch
    } else {
        limiter
    };
    PassPerf {
        roofline: Roofline::new(p.flops, p.min_bytes, roof_flops, gpu.bandwidth_bytes_per_s),
        efficiency: p.efficiency,
        kernels: p.kernels,
        compute_s: p.compute_s,
        memory_s: p.memory_s,
        launch_s: p.floor_s,
        time_s,
        limiter,
        achieved_flops: if time_s > 0.0 { p.flops / time_s } else { 0.0 },
    }
}

/// A layer's report from the device model's figures; `peak` is the precision's roof.
pub(super) fn layer_perf(l: &LayerReport, d: &DeviceLayer, peak: f64, gpu: &GpuSpec) -> LayerPerf {
    let roof = if l.tensor_core { peak } else { gpu.fp32_flops };
    LayerPerf {
        name: l.name.clone(),
        kind: l.kind.clone(),
        class: d.class,
        forward: pass_perf(&d.forward, roof, gpu),
        backward: pass_perf(&d.backward, roof, gpu),
    }
}
