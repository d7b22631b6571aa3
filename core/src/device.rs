//! Device time per layer by op class: what each kind of kernel really reaches on a card.
//!
//! A roofline per layer and pass (see `perf`) with the roof, efficiency and memory passes
//! of the layer's op class:
//! - dense convolutions and GEMMs on the math unit the precision selects (`Maths`):
//!   tensor cores (TF32, FP16/BF16) or FP32 CUDA cores, each with its own fraction of
//!   peak: cuDNN's convolutions reach less of the tensor-core peak than large cuBLAS
//!   GEMMs, and 3-D convolutions a much smaller share still;
//! - depthwise and narrow grouped convolutions (at most `GROUPED_CHANNELS` channels per
//!   group) run on CUDA cores whatever the precision and are bound by memory;
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
//! Time per pass = max(compute, memory, kernels x kernel_min_s) with
//! compute = (work + roof x ramp) / (roof x efficiency) and
//! memory = bytes x passes / (bandwidth x memory_efficiency).
//! The efficiencies are fitted on published training throughput
//! (core/tests/published_steps.rs; the README has the fit and the held-out error).

use serde::{Deserialize, Serialize};

use crate::analysis::LayerReport;
use crate::gpu::GpuSpec;
use crate::graph::Op;

/// Channels per group at or below which a grouped convolution runs on CUDA cores
/// (depthwise: 1).
pub const GROUPED_CHANNELS: u64 = 8;

/// The math unit conv and matmul run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MathMode {
    Fp32,
    Tf32,
    /// FP16 or BF16 tensor cores.
    Half,
}

/// Which unit each kind of layer uses, and whether autocast casts around them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Maths {
    pub conv: MathMode,
    pub matmul: MathMode,
    pub autocast: bool,
}

impl Maths {
    /// PyTorch's defaults: cuDNN convolutions may use TF32
    /// (`torch.backends.cudnn.allow_tf32 = True`), matmuls may not
    /// (`torch.backends.cuda.matmul.allow_tf32 = False` since 1.12); docs "CUDA
    /// semantics", "TensorFloat-32 (TF32) on Ampere (and later) devices".
    pub fn torch_default(gpu: &GpuSpec) -> Maths {
        Maths {
            conv: if gpu.tf32_flops.is_some() {
                MathMode::Tf32
            } else {
                MathMode::Fp32
            },
            matmul: MathMode::Fp32,
            autocast: false,
        }
    }

    pub fn fp32() -> Maths {
        Maths {
            conv: MathMode::Fp32,
            matmul: MathMode::Fp32,
            autocast: false,
        }
    }

    /// TF32 everywhere (FP32 on cards without it).
    pub fn tf32(gpu: &GpuSpec) -> Maths {
        let mode = if gpu.tf32_flops.is_some() {
            MathMode::Tf32
        } else {
            MathMode::Fp32
        };
        Maths {
            conv: mode,
            matmul: mode,
            autocast: false,
        }
    }

    /// 16-bit tensor cores (FP32 where the card lacks the format).
    pub fn half(has_format: bool, autocast: bool) -> Maths {
        let mode = if has_format {
            MathMode::Half
        } else {
            MathMode::Fp32
        };
        Maths {
            conv: mode,
            matmul: mode,
            autocast,
        }
    }
}

/// The op classes the device model tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpClass {
    /// Linear, matmul, attention.
    Gemm,
    /// Dense 1-D/2-D convolution.
    Conv,
    Conv3d,
    /// Depthwise or narrow grouped convolution.
    Grouped,
    Norm,
    /// Activations, dropout, add, mul, concat, pools, upsampling, tokens.
    Elementwise,
    /// Views and copies of a view.
    View,
}

pub fn op_class(op: &Op) -> OpClass {
    match op {
        Op::Conv {
            out_channels,
            groups,
            ..
        } if *groups > 1 && out_channels / groups <= GROUPED_CHANNELS => OpClass::Grouped,
        Op::Conv { dims: 3, .. } => OpClass::Conv3d,
        Op::Conv { .. } => OpClass::Conv,
        Op::Linear { .. } | Op::Matmul | Op::Attention { .. } => OpClass::Gemm,
        Op::BatchNorm | Op::LayerNorm | Op::GroupNorm { .. } => OpClass::Norm,
        Op::Flatten | Op::Reshape { .. } | Op::Permute { .. } | Op::TakeToken { .. } => {
            OpClass::View
        }
        Op::Act { .. }
        | Op::Dropout { .. }
        | Op::MaxPool { .. }
        | Op::AvgPool { .. }
        | Op::AdaptiveAvgPool { .. }
        | Op::Upsample { .. }
        | Op::Add
        | Op::Mul
        | Op::Concat { .. }
        | Op::ClassToken
        | Op::PositionEmbedding => OpClass::Elementwise,
    }
}

/// Efficiencies and passes that cannot be derived. Every field is user-editable.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviceAssumptions {
    /// Fraction of the tensor-core or FP32 peak large GEMMs reach (cuBLAS reaches
    /// 60-80 % of datasheet peak on large problems: NVIDIA "Matrix Multiplication
    /// Background" guide).
    pub gemm_efficiency: f64,
    /// Fraction of the tensor-core peak cuDNN's 1-D/2-D convolutions reach.
    pub conv_efficiency: f64,
    /// Fraction of the FP32 CUDA-core peak convolutions reach in FP32, counted in
    /// direct-convolution FLOPs (cuDNN's Winograd and FFT kernels do fewer multiplies
    /// for 3x3 kernels, so this may exceed what a GEMM reaches).
    pub fp32_conv_efficiency: f64,
    /// 3-D convolutions on tensor cores reach this fraction of what 2-D ones reach
    /// (cuDNN's 3-D tensor-core kernels are far less tuned).
    pub conv3d_tensor_factor: f64,
    /// The same on FP32 CUDA cores.
    pub conv3d_fp32_factor: f64,
    /// Device-memory traffic of a convolution over its input + output + weights
    /// (tiles re-read from memory, the weight-gradient pass reading both again).
    pub conv_traffic: f64,
    /// Passes over input and output of the NCHW <-> NHWC transposes around a
    /// half-precision convolution (0 with `channels_last`).
    pub transpose_passes: f64,
    /// Passes over the N x heads x T x T scores of attention: forward (write, softmax
    /// read and write, read by the second matmul, dropout) and backward.
    pub attention_score_passes: f64,
    /// Fraction of the FP32 peak depthwise / narrow grouped convolutions reach.
    pub grouped_efficiency: f64,
    /// Work, seconds at peak, at which a kernel reaches half its efficiency.
    pub efficiency_ramp_s: f64,
    /// Fraction of datasheet bandwidth streaming kernels reach.
    pub memory_efficiency: f64,
    /// Traffic factor of normalisation over input + output (forward) and its backward.
    pub norm_passes: f64,
    /// Tensors are channels_last (NHWC): no transposes around half-precision convs.
    pub channels_last: bool,
    /// Least GPU time of one kernel, seconds (launch gap and a wave of tiny blocks).
    pub kernel_min_s: f64,
    /// L2 bandwidth over device-memory bandwidth: the share of a layer's traffic that
    /// its L2 can hold (L2 size / the layer's input + output + weights, at most 1) moves
    /// this much faster.
    pub l2_speedup: f64,
}

impl Default for DeviceAssumptions {
    fn default() -> Self {
        DeviceAssumptions {
            gemm_efficiency: 0.58,
            conv_efficiency: 0.81,
            fp32_conv_efficiency: 0.95,
            conv3d_tensor_factor: 0.14,
            conv3d_fp32_factor: 0.53,
            conv_traffic: 1.66,
            transpose_passes: 1.76,
            attention_score_passes: 24.0,
            grouped_efficiency: 0.025,
            efficiency_ramp_s: 2e-6,
            memory_efficiency: 0.68,
            norm_passes: 1.76,
            channels_last: false,
            kernel_min_s: 2.5e-6,
            l2_speedup: 2.72,
        }
    }
}

/// One pass of one layer on the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DevicePass {
    pub flops: f64,
    pub bytes: f64,
    pub kernels: u32,
    /// Roof of the unit the class runs on, FLOP/s.
    pub roof_flops: f64,
    /// Fraction of the roof this pass reaches at its size.
    pub efficiency: f64,
    pub compute_s: f64,
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
}

fn pass(
    flops: f64,
    bytes: f64,
    kernels: u32,
    u: &Unit,
    gpu: &GpuSpec,
    a: &DeviceAssumptions,
) -> DevicePass {
    let Unit {
        roof_flops,
        efficiency,
        l2_share,
    } = *u;
    // A pass that launches nothing (a view) does no work.
    let runs = if kernels > 0 { 1.0 } else { 0.0 };
    let (flops, bytes) = (runs * flops, runs * bytes);
    let ramp = roof_flops * a.efficiency_ramp_s;
    let (efficiency, compute_s) = if flops > 0.0 {
        (
            efficiency * flops / (flops + ramp),
            (flops + ramp) / (roof_flops * efficiency),
        )
    } else {
        (efficiency, 0.0)
    };
    let memory_s = bytes * (1.0 - l2_share + l2_share / a.l2_speedup)
        / (gpu.bandwidth_bytes_per_s * a.memory_efficiency);
    let floor_s = f64::from(kernels) * a.kernel_min_s;
    DevicePass {
        flops,
        bytes,
        kernels,
        roof_flops,
        efficiency,
        compute_s,
        memory_s,
        floor_s,
        time_s: compute_s.max(memory_s).max(floor_s),
    }
}

/// Device time of one layer's forward and backward for the whole per-GPU batch.
pub fn device_layer(
    l: &LayerReport,
    op: &Op,
    batch: f64,
    maths: Maths,
    gpu: &GpuSpec,
    a: &DeviceAssumptions,
) -> DeviceLayer {
    let class = op_class(op);
    let (roof_flops, efficiency) = match class {
        OpClass::Gemm => {
            let mode = maths.matmul;
            (roof(gpu, mode), a.gemm_efficiency)
        }
        OpClass::Conv | OpClass::Conv3d => {
            let rate = |mode: MathMode| {
                let (base, factor_3d) = if mode == MathMode::Fp32 {
                    (a.fp32_conv_efficiency, a.conv3d_fp32_factor)
                } else {
                    (a.conv_efficiency, a.conv3d_tensor_factor)
                };
                let factor = if class == OpClass::Conv3d {
                    factor_3d
                } else {
                    1.0
                };
                (roof(gpu, mode), base * factor)
            };
            let chosen = rate(maths.conv);
            // Tensor cores are allowed, not forced: cuDNN takes a CUDA-core kernel (at the
            // FP32 rate, or better in 16 bit) where one is faster: GeForce Ampere has no
            // more TF32 than FP32 throughput, and 3-D tensor-core kernels are slow.
            let fp32 = rate(MathMode::Fp32);
            if fp32.0 * fp32.1 > chosen.0 * chosen.1 {
                fp32
            } else {
                chosen
            }
        }
        OpClass::Grouped => (gpu.fp32_flops, a.grouped_efficiency),
        OpClass::Norm | OpClass::Elementwise | OpClass::View => (gpu.fp32_flops, a.gemm_efficiency),
    };
    let mut fwd_bytes = l.input_bytes + l.weight_bytes + l.output_bytes;
    let mut bwd_bytes = l.output_bytes + 2.0 * l.input_bytes + 2.0 * l.weight_bytes;
    let (mut fwd_kernels, mut bwd_kernels) = (l.kernels_fwd, l.kernels_bwd);
    let conv = matches!(class, OpClass::Conv | OpClass::Conv3d);
    match class {
        OpClass::Norm => {
            fwd_bytes *= a.norm_passes;
            bwd_bytes *= a.norm_passes;
        }
        OpClass::Conv | OpClass::Conv3d => {
            fwd_bytes *= a.conv_traffic;
            bwd_bytes *= a.conv_traffic;
        }
        _ => {}
    }
    if let (Op::Attention { heads, .. }, &[tokens, dim]) = (op, &l.output_shape[..]) {
        // The scores never leave the layer, so its input/output bytes miss them.
        let element = l.output_bytes / (batch * (tokens * dim) as f64);
        let scores = batch * (*heads * tokens * tokens) as f64 * element;
        fwd_bytes += a.attention_score_passes / 2.0 * scores;
        bwd_bytes += a.attention_score_passes / 2.0 * scores;
    }
    if conv && maths.conv == MathMode::Half && !a.channels_last {
        // Input and output transposed around the kernel; in backward the output gradient
        // in and the input gradient out.
        fwd_bytes += a.transpose_passes * (l.input_bytes + l.output_bytes);
        bwd_bytes += a.transpose_passes * (l.input_bytes + l.output_bytes);
        fwd_kernels += 2;
        bwd_kernels += 2;
    }
    let tensor_core_layer = conv || class == OpClass::Gemm;
    if maths.autocast && tensor_core_layer && l.params > 0 {
        // fp32 -> 16-bit weight copy in forward, 16-bit weight gradient -> fp32 in
        // backward: 4 + 2 bytes per parameter each.
        let cast = 6.0 * l.params as f64;
        fwd_bytes += cast;
        bwd_bytes += cast;
        fwd_kernels += 1;
        bwd_kernels += 1;
    }
    let footprint = l.input_bytes + l.output_bytes + l.weight_bytes;
    let unit = Unit {
        roof_flops,
        efficiency,
        l2_share: if footprint > 0.0 {
            (gpu.l2_bytes() / footprint).min(1.0)
        } else {
            1.0
        },
    };
    let other = l.other_flops;
    DeviceLayer {
        class,
        forward: pass(l.fwd_flops + other, fwd_bytes, fwd_kernels, &unit, gpu, a),
        backward: pass(l.bwd_flops + other, bwd_bytes, bwd_kernels, &unit, gpu, a),
    }
}
