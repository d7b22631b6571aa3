//! Device time per layer by op class: what each kind of kernel really reaches on a card.
//!
//! A roofline per layer and pass (see `perf`) with the roof, efficiency and memory passes
//! of the layer's op class:
//! - dense convolutions and GEMMs on the math unit the precision selects (`Maths`):
//!   tensor cores (TF32, FP16/BF16) or FP32 CUDA cores, each with its own fraction of
//!   peak: cuDNN's convolutions reach less of the tensor-core peak than large cuBLAS
//!   GEMMs, and 3-D convolutions a much smaller share still;
//! - grouped and depthwise convolutions at the rate of their per-group shape: on CUDA
//!   cores a stencil whose cost per output is shared by its K multiply-adds (a 7x7
//!   depthwise kernel runs several times faster per FLOP than a 3x3 one), in 16 bit
//!   also one narrow GEMM per group on tensor cores, whichever is faster (depthwise:
//!   CUDA cores only);
//! - a fused attention core (SDPA) on its kernel's unit: in fp32 the memory-efficient
//!   kernel's three TF32 products per product on Ampere and later;
//! - normalisation reads its input twice in forward (statistics, then normalise) and
//!   makes more passes in backward; element-wise ops make the passes their traffic
//!   says;
//! - half-precision convolutions on NCHW tensors (PyTorch's default layout) are
//!   transposed to NHWC and back around every cuDNN tensor-core kernel (the
//!   `nchwToNhwc` / `nhwcToNchw` kernels in profiles); `channels_last` removes that;
//! - under autocast every tensor-core layer casts its fp32 weight to 16 bit in forward
//!   and its weight gradient back in backward;
//! - every kernel takes at least `kernel_min_s` on the GPU.
//!
//! Time per pass = max(compute, memory, kernels x kernel_launch_s) with
//! compute = (work + roof x ramp) / (roof x efficiency) and
//! memory = bytes x passes x (1 / (bandwidth x memory_efficiency) + memory_issue_per_kib /
//! (1024 x warp issue rate)): what a kernel issues per byte it moves is hidden on cards
//! that issue much per byte of bandwidth, not on an A100 (copies issue next to nothing).
//! The efficiencies (`PerfAssumptions` and its `device` section) are fitted on published
//! training throughput (core/tests/published_steps_fit.rs, checked by
//! core/tests/published_steps.rs; docs/validation.md has the fit and the held-out error).

use serde::{Deserialize, Serialize};

pub use crate::analysis::{OpClass, GROUPED_CHANNELS};
pub use crate::cudnn::{MathMode, Maths};

use crate::analysis::LayerReport;
use crate::assumptions::PerfAssumptions;
use crate::gpu::GpuSpec;

/// One pass of one layer on the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DevicePass {
    pub flops: f64,
    /// Bytes the pass moves in the model (class passes, transposes, casts included).
    pub bytes: f64,
    /// The textbook minimum: each tensor read or written once (the roofline's bytes).
    pub min_bytes: f64,
    pub kernels: u32,
    /// Roof of the unit the class runs on, FLOP/s.
    pub roof_flops: f64,
    /// Fraction of the roof this pass reaches at its size.
    pub efficiency: f64,
    pub compute_s: f64,
    /// The part of `compute_s` no work makes: the ramp, the least time a kernel on this
    /// unit takes (where it is most of `compute_s`, no faster unit would help).
    pub ramp_s: f64,
    pub memory_s: f64,
    pub floor_s: f64,
    pub time_s: f64,
}

/// A layer's class and its two passes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceLayer {
    pub class: OpClass,
    pub forward: DevicePass,
    pub backward: DevicePass,
}

fn roof(gpu: &GpuSpec, mode: MathMode) -> f64 {
    match mode {
        MathMode::Fp32 => gpu.fp32_flops,
        MathMode::Tf32 => gpu.tf32_flops.unwrap_or(gpu.fp32_flops),
        MathMode::Half => gpu.fp16_tensor_flops,
    }
}

/// Roof and efficiency a pass runs at, and the fraction of its traffic L2 holds.
struct Unit {
    roof_flops: f64,
    efficiency: f64,
    l2_share: f64,
    /// Whether the pass's traffic costs instruction issue (`memory_issue_per_kib`): all
    /// but copies.
    issues: bool,
}

fn pass(
    (flops, work): (f64, f64),
    (min_bytes, bytes): (f64, f64),
    (kernels, sequential_s): (u32, f64),
    u: &Unit,
    gpu: &GpuSpec,
    a: &PerfAssumptions,
) -> DevicePass {
    let Unit {
        roof_flops,
        efficiency,
        l2_share,
        issues,
    } = *u;
    // A pass that launches nothing (a view) does no work.
    let runs = if kernels > 0 { 1.0 } else { 0.0 };
    let (flops, bytes, min_bytes) = (runs * flops, runs * bytes, runs * min_bytes);
    let ramp = roof_flops * a.efficiency_ramp_s;
    // `work` x the counted FLOPs is what the kernel does (more where cuDNN's pick is
    // slower than the timed one); the efficiency is the counted FLOPs' share of the roof.
    let (efficiency, compute_s, ramp_s) = if flops > 0.0 {
        let compute_s = (flops * work + ramp) / (roof_flops * efficiency);
        let ramp_s = ramp / (roof_flops * efficiency);
        (flops / (compute_s * roof_flops), compute_s, ramp_s)
    } else {
        (efficiency, 0.0, 0.0)
    };
    let memory_s = bytes
        * ((1.0 - l2_share + l2_share / a.device.l2_speedup)
            / (gpu.bandwidth_bytes_per_s * a.memory_efficiency)
            + if issues {
                a.device.memory_issue_per_kib / 1024.0 / gpu.warp_issue_per_s()
            } else {
                0.0
            });
    let floor_s = f64::from(kernels) * a.kernel_launch_s + runs * sequential_s;
    DevicePass {
        flops,
        bytes,
        min_bytes,
        kernels,
        roof_flops,
        efficiency,
        compute_s,
        ramp_s,
        memory_s,
        floor_s,
        time_s: compute_s.max(memory_s).max(floor_s),
    }
}

/// The faster of two (roof, efficiency) rates.
fn faster(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    if b.0 * b.1 > a.0 * a.1 {
        b
    } else {
        a
    }
}

/// Roof and efficiency of a convolution, from the shape of its implicit GEMM: N output
/// channels per group and K input channels per group x kernel volume.
fn conv_rate(l: &LayerReport, maths: Maths, gpu: &GpuSpec, a: &PerfAssumptions) -> (f64, f64) {
    let d = &a.device;
    let out_channels = l.output_shape.first().copied().unwrap_or(1).max(1) as f64;
    let n = out_channels / l.groups.max(1) as f64;
    let k = l.weights as f64 / out_channels;
    if l.groups > 1 {
        // On CUDA cores a grouped or depthwise convolution is a stencil: its cost per
        // output (indexing, loads, the store) is shared by K multiply-adds, so a 7x7
        // depthwise kernel reaches several times the rate of a 3x3 one.
        let cuda = (
            gpu.fp32_flops,
            d.grouped_efficiency * k / (k + d.grouped_depth_half),
        );
        // cuDNN runs 16-bit grouped convolutions on tensor cores, one narrow GEMM per
        // group; in TF32 and FP32 they stay on CUDA cores (DeepLearningExamples'
        // ResNeXt-101: AMP 2.65x its TF32 throughput on an A100, where dense ResNet-50
        // gains 2.6x with tensor cores in both). A depthwise convolution (one output
        // channel per group) is no GEMM: CUDA cores only.
        return match maths.conv {
            MathMode::Half if n > 1.0 => faster(
                cuda,
                (
                    roof(gpu, MathMode::Half),
                    d.conv_efficiency * n / (n + d.grouped_channels_half),
                ),
            ),
            _ => cuda,
        };
    }
    conv_unit(l.class, maths.conv, n, k, gpu, a)
}

/// Roof and fraction of it a dense convolution's implicit GEMM of width `n` (output
/// channels) and depth `k` (reduction per output) reaches: narrow ones leave most of each
/// tile idle.
fn dense_rate(
    class: OpClass,
    mode: MathMode,
    n: f64,
    k: f64,
    gpu: &GpuSpec,
    a: &PerfAssumptions,
) -> (f64, f64) {
    let d = &a.device;
    let (base, factor_3d, channels_half) = if mode == MathMode::Fp32 {
        (
            d.fp32_conv_efficiency,
            d.conv3d_fp32_factor,
            d.conv3d_fp32_channels_half,
        )
    } else {
        (
            d.conv_efficiency,
            d.conv3d_tensor_factor,
            d.conv3d_channels_half,
        )
    };
    // cuDNN's 3-D kernels on Hopper reach less again (`perf.cudnn.hopper_conv3d_*`).
    let hopper = match (gpu.is_hopper(), mode) {
        (false, _) => 1.0,
        (true, MathMode::Fp32) => a.cudnn.hopper_conv3d_fp32_factor,
        (true, _) => a.cudnn.hopper_conv3d_tensor_factor,
    };
    let factor = if class == OpClass::Conv3d {
        hopper * factor_3d * n / (n + channels_half) * k / (k + d.conv3d_depth_half)
    } else {
        1.0
    };
    (roof(gpu, mode), base * factor)
}

/// The unit a convolution runs on where `mode` is allowed: tensor cores are allowed, not
/// forced, and cuDNN takes a CUDA-core kernel (at the FP32 rate, or better in 16 bit)
/// where one is faster: GeForce Ampere has no more TF32 than FP32 throughput, and 3-D
/// tensor-core kernels are slow.
fn conv_unit(
    class: OpClass,
    mode: MathMode,
    n: f64,
    k: f64,
    gpu: &GpuSpec,
    a: &PerfAssumptions,
) -> (f64, f64) {
    faster(
        dense_rate(class, mode, n, k, gpu, a),
        dense_rate(class, MathMode::Fp32, n, k, gpu, a),
    )
}

/// How much longer than the timed algorithm at the counted FLOPs cuDNN's pick takes for
/// the forward and the backward of a convolution (`cudnn::conv_algos`): 1 and 1 with
/// `cudnn.benchmark`, or for convolutions its heuristics handle well.
fn algorithm_factors(
    l: &LayerReport,
    maths: Maths,
    gpu: &GpuSpec,
    a: &PerfAssumptions,
) -> (f64, f64) {
    // Grouped convolutions keep their own rates (`conv_rate`).
    let Some(c) = l.conv.as_ref().filter(|c| c.groups <= 1) else {
        return (1.0, 1.0);
    };
    let groups = c.groups.max(1) as f64;
    let kvol: f64 = c.kernel.iter().map(|&k| k as f64).product();
    // A narrow implicit GEMM reads its lowered operand (every kernel tap of every output
    // position) once per output column: 2 x N FLOPs per element at most.
    let speed = |(roof, efficiency): (f64, f64), math: MathMode, n: f64| {
        let share = if math == MathMode::Fp32 {
            a.cudnn.lowered_rate_fp32
        } else {
            a.cudnn.lowered_rate_tensor
        };
        (roof * efficiency).min(2.0 * n * share * gpu.bandwidth_bytes_per_s / 4.0)
    };
    let n = c.out_channels as f64 / groups;
    let timed_unit = conv_unit(
        l.class,
        maths.conv,
        n,
        c.in_channels as f64 / groups * kvol,
        gpu,
        a,
    );
    let timed = speed(timed_unit, maths.conv, n);
    let (mut forward, mut backward, mut backward_passes) = (1.0, 0.0, 0.0);
    for p in crate::cudnn::conv_algos(c, maths, &a.cudnn) {
        let unit = if p.math == MathMode::Fp32 {
            dense_rate(l.class, MathMode::Fp32, p.gemm_n, p.gemm_k, gpu, a)
        } else {
            conv_unit(l.class, p.math, p.gemm_n, p.gemm_k, gpu, a)
        };
        // The pick's time over the timed one's, both bound by their reads; but never
        // faster than the pick's own unit allows. Without that floor a timed algorithm
        // bound by its reads made a pick that is not look faster where its reads were
        // slower: more bandwidth slowed the step (Hamida in AMP on an H100 SXM: 0.91x).
        let uncapped = (timed_unit.0 * timed_unit.1) / (unit.0 * unit.1);
        let factor =
            p.work_factor * p.slowdown * (timed / speed(unit, p.math, p.gemm_n)).max(uncapped);
        if p.pass == crate::cudnn::Pass::Forward {
            forward = factor;
        } else {
            backward += factor;
            backward_passes += 1.0;
        }
    }
    let backward = if backward_passes > 0.0 {
        backward / backward_passes
    } else {
        1.0
    };
    (forward, backward)
}

/// Device time of one layer's forward and backward for the whole per-GPU batch.
pub fn device_layer(
    l: &LayerReport,
    maths: Maths,
    gpu: &GpuSpec,
    a: &PerfAssumptions,
) -> DeviceLayer {
    let d = &a.device;
    let class = l.class;
    let (roof_flops, efficiency) = match class {
        OpClass::Gemm => {
            let mode = maths.matmul;
            (roof(gpu, mode), a.compute_efficiency)
        }
        OpClass::Conv | OpClass::Conv3d | OpClass::Grouped => conv_rate(l, maths, gpu, a),
        OpClass::Norm | OpClass::Elementwise | OpClass::View => {
            (gpu.fp32_flops, a.compute_efficiency)
        }
    };
    let fwd_min = l.input_bytes + l.weight_bytes + l.output_bytes;
    let bwd_min = l.output_bytes + 2.0 * l.input_bytes + 2.0 * l.weight_bytes;
    let (mut fwd_bytes, mut bwd_bytes) = (fwd_min, bwd_min);
    let (mut fwd_kernels, mut bwd_kernels) = (l.kernels_fwd, l.kernels_bwd);
    let conv = matches!(class, OpClass::Conv | OpClass::Conv3d);
    match class {
        OpClass::Norm => {
            fwd_bytes *= d.norm_passes;
            bwd_bytes *= d.norm_passes;
        }
        OpClass::Conv | OpClass::Conv3d => {
            fwd_bytes *= d.conv_traffic;
            bwd_bytes *= d.conv_traffic;
        }
        _ => {}
    }
    // Attention's scores never leave the layer: its input and output bytes miss them.
    // `scratch_bytes` holds the scores twice (16-bit and fp32, or fp32 twice).
    fwd_bytes += d.attention_score_passes / 4.0 * l.scratch_bytes;
    bwd_bytes += d.attention_score_passes / 4.0 * l.scratch_bytes;
    if conv && maths.conv == MathMode::Half && !d.channels_last {
        // Input and output transposed around the kernel; in backward the output gradient
        // in and the input gradient out.
        fwd_bytes += d.transpose_passes * (l.input_bytes + l.output_bytes);
        fwd_kernels += 2;
        // A frozen layer no gradient reaches has no backward to transpose around.
        if l.kernels_bwd > 0 {
            bwd_bytes += d.transpose_passes * (l.input_bytes + l.output_bytes);
            bwd_kernels += 2;
        }
    }
    let tensor_core_layer = conv || class == OpClass::Gemm;
    if maths.autocast && tensor_core_layer && l.params > 0 {
        // fp32 -> 16-bit weight copy in forward, 16-bit weight gradient -> fp32 in
        // backward (only where the weight trains): 4 + 2 bytes per parameter each.
        let cast = 6.0 * l.params as f64;
        fwd_bytes += cast;
        fwd_kernels += 1;
        if l.trainable_params > 0 {
            bwd_bytes += cast;
            bwd_kernels += 1;
        }
    }
    let footprint = l.input_bytes + l.output_bytes + l.weight_bytes;
    let unit = Unit {
        roof_flops,
        efficiency,
        issues: class != OpClass::View,
        l2_share: if footprint > 0.0 {
            (gpu.l2_bytes() / footprint).min(1.0)
        } else {
            1.0
        },
    };
    let other = l.other_flops;
    let (forward_work, backward_work) = algorithm_factors(l, maths, gpu, a);
    // cuDNN's 2-D kernels on Hopper do the work of the Ampere and Volta fit more slowly
    // (`perf.cudnn.hopper_conv2d_*`): more time per FLOP, not a longer ramp.
    let hopper_2d = match (class == OpClass::Conv && gpu.is_hopper(), maths.conv) {
        (false, _) => 1.0,
        (true, MathMode::Fp32) => 1.0 / a.cudnn.hopper_conv2d_fp32_factor,
        (true, _) => 1.0 / a.cudnn.hopper_conv2d_tensor_factor,
    };
    let (forward_work, backward_work) = (forward_work * hopper_2d, backward_work * hopper_2d);
    let work = |flops: f64, factor: f64| {
        let total = flops + other;
        (
            total,
            if total > 0.0 {
                (flops * factor + other) / total
            } else {
                1.0
            },
        )
    };
    // A fused attention core runs on its kernel's unit; the pass's roof is the one that
    // gives its FLOPs the time of both parts.
    let with_fused = |flops: f64, fused: f64| {
        let core_roof = fused_attention_roof(maths, gpu) * fused_attention_share(gpu, &unit, a);
        let rest = flops - fused;
        let roof_flops = if fused > 0.0 && rest >= 0.0 {
            flops / (rest / unit.roof_flops + fused / core_roof)
        } else {
            unit.roof_flops
        };
        Unit { roof_flops, ..unit }
    };
    let [fused_fwd, fused_bwd] = l.fused_attention_flops;
    // A persistent cuDNN RNN kernel's steps run one after another
    // (`LayerReport::persistent_steps`): each at least a kernel's least time, and its
    // hidden-state product at `rnn_persistent_efficiency` of the FP32 peak (the kernel
    // keeps the weights on chip in a few thread blocks; its math is FP32 in 16-bit runs
    // too, `promote_rnn_math_type`).
    let step = (l.step_flops / (gpu.fp32_flops * a.cudnn.rnn_persistent_efficiency))
        .max(a.kernel_launch_s);
    let [fwd_sequential, bwd_sequential] = l.persistent_steps.map(|steps| steps * step);
    DeviceLayer {
        class,
        forward: pass(
            work(l.fwd_flops, forward_work),
            (fwd_min, fwd_bytes),
            (fwd_kernels, fwd_sequential),
            &with_fused(l.fwd_flops + other, fused_fwd),
            gpu,
            a,
        ),
        backward: pass(
            work(l.bwd_flops, backward_work),
            (bwd_min, bwd_bytes),
            (bwd_kernels, bwd_sequential),
            &with_fused(l.bwd_flops + other, fused_bwd),
            gpu,
            a,
        ),
    }
}

/// The fused attention core's rate over its unit's (`unit.efficiency` of the roof): on
/// Hopper PyTorch's sm80-generation kernels reach `hopper_fused_attention_efficiency` of
/// the peak, elsewhere what a GEMM reaches.
fn fused_attention_share(gpu: &GpuSpec, unit: &Unit, a: &PerfAssumptions) -> f64 {
    if gpu.is_hopper() && unit.efficiency > 0.0 {
        a.device.hopper_fused_attention_efficiency / unit.efficiency
    } else {
        1.0
    }
}

/// The unit a fused SDPA kernel runs attention's core on. PyTorch's kernel choice
/// (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp, `select_sdp_backend`): flash
/// and cuDNN attention take fp16/bf16 only, so fp32 inputs go to the memory-efficient
/// kernel, whose mem_eff_attention/gemm_kernel_utils.h runs fp32 on sm80+ tensor cores
/// as `OpMultiplyAddFastF32` (three TF32 products per product, whatever `allow_tf32`
/// says) and on older cards on CUDA cores. In 16 bit every fused kernel uses tensor
/// cores, as a GEMM does.
pub fn fused_attention_roof(maths: Maths, gpu: &GpuSpec) -> f64 {
    match (maths.matmul, gpu.tf32_flops) {
        (MathMode::Half, _) => roof(gpu, MathMode::Half),
        (_, Some(tf32)) => tf32 / 3.0,
        (_, None) => gpu.fp32_flops,
    }
}
