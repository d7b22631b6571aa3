//! cuDNN's convolution algorithms as PyTorch picks them: for each pass of a convolution
//! (forward, backward data, backward filter), the work the chosen algorithm does, how
//! fast it runs against the fastest one, and the workspace it allocates.
//!
//! How PyTorch picks (ATen `native/cudnn/Conv_v8.cpp`, `run_single_conv`; the v7 path in
//! `Conv_v7.cpp`, taken only with `TORCH_CUDNN_V8_API_DISABLED`, picks the same way):
//! - a per-shape plan cache is looked up first, whatever `cudnn.benchmark` says (its key
//!   holds the shape, dtype, TF32 and alignment, not the benchmark flag);
//! - `torch.backends.cudnn.benchmark = False` (the default): the engine configs cuDNN's
//!   heuristics rank first (`CUDNN_HEUR_MODE_INSTANT`) are tried in order; each allocates
//!   its workspace from the caching allocator and one that runs out of memory is skipped
//!   for the next (`try_configs`);
//! - `True`: every plan whose workspace fits the largest block the allocator could hand
//!   out (`get_available_workspace`: the larger of `cudaMemGetInfo`'s free memory and the
//!   largest cached free block) is timed on the first step of the shape, with one buffer of
//!   the largest such workspace, halved on out-of-memory (`generate_and_filter_plans`);
//!   the fastest runs from then on, its own workspace allocated on every call;
//! - the whole batch is one cuDNN call: the v8 path (PyTorch's default; the batch split of
//!   tensors over 2^31 - 1 elements, `split_batch_dim_to_32bit_out`, is the v7 path's
//!   only, `Conv_v8.cpp`'s `raw_cudnn_convolution_forward_out` and its backward ones), so
//!   a workspace grows with the batch. The H200 sweep agrees: HybridSN's peak held about
//!   46 GB above its tensors at batch 16,384 and 18,432, where the v7 path would have cut
//!   its second and third 3-D convolutions into calls of 645-3,804 samples.
//!
//! What the heuristics pick, inferred from this project's H200 runs (PyTorch 2.11, cuDNN
//! 9.19; `core/tests/fixtures/measured_h200/`, `core/tests/measured_h200.rs`,
//! `measured_h200_conv3d.rs`):
//! - 1-D and 2-D convolutions, and 3-D ones that are 1-D or 2-D ones in disguise (a kernel
//!   of 1 along two neighbouring dimensions, or a dimension of extent 1: DBDA's and
//!   SSRN's spectral (1, 1, 7) kernels, their (3, 3, 1) ones on a depth of 1) ran alike
//!   with and without timing (DBDA 1.14x, ResNet-50 1.0x);
//! - 3-D convolutions whose kernel spans three dimensions did not: HybridSN ran 5.9x
//!   slower in FP32, 2.1x in TF32, 1.07x in bf16. Its TF32 steps took as long as its timed
//!   FP32 steps (34.8 against 31.2 ms) and held the same workspace (2.31 against 2.39 GB
//!   allocated, against 1.29 GB timed in TF32): the heuristics run CUDA-core (FP32)
//!   algorithms for these even where TF32 is allowed, and in FP32 a slower one than the
//!   timed (`heuristic_fp32_slowdown`);
//! - backward data as an implicit GEMM over the input positions, every kernel tap of every
//!   input element (NVIDIA's own large-tensor convolution test counts DGRAD's implicit-GEMM
//!   work as `2 n c input_spatial k filter_spatial`, cudnn-frontend PR 401): the work over
//!   the counted FLOPs is input positions / output positions, about 1.4 for HybridSN's
//!   valid 3 x 3 x 3 kernels but 251 for SSRN's 3 x 3 x 128 kernel over a 7 x 7 x 128
//!   input. Apache SystemML saw the same pick (`CUDNN_CONVOLUTION_BWD_DATA_ALGO_1`) run
//!   200x slower than ALGO_0 on a kernel as wide as its input (apache/systemds PR 682);
//! - 1-D and 2-D convolutions (ATen's `view4d` hands cuDNN a 1-D one as 2-D) in FP32 or
//!   TF32 held a workspace beside their tensors that bf16 did not: from batch 64 to 512
//!   SSFTT's allocated peak grew 1.09 MB a sample in the default precision, its tensors
//!   0.58 (in bf16 0.27 measured, 0.31 counted); its 3-D convolution has one input
//!   channel, its 2-D one lowers 0.65 MB a sample. At batch 64 U-Net's tensors came 13 %
//!   under its peak. They are given the CUDA-core share of their lowered input, untimed
//!   only, except a 1 x 1 kernel, whose lowered input is the input itself (HybridSN's
//!   peaks, which its 2-D convolution does not set, and the timed steps do not move).
//!   Read off held-out models' steps: no constant was fitted, but SSFTT's and U-Net's
//!   memory rows no longer check a rule they did not shape.
//!
//! Timed single convolutions (`tools/measure_conv.py`) cannot show any of this: the
//! script timed every shape with `benchmark = True` first, and the plan cache then
//! served the same plans to the `False` pass (`measured_h200/conv.jsonl`: off/on 0.98-1.02
//! on every compute-bound shape). Which kernels ran was not recorded; `device` times each
//! pass from this module's `PassAlgo` (its unit, work, slowdown and GEMM shape).
//!
//! For the memory model: `workspaces(layers, maths, &perf.cudnn)`, with
//! `maths = Maths::of(precision, card).benchmarked(cudnn_benchmark)`, lists every
//! convolution pass of a model with its algorithm; `PassAlgo::workspace_bytes(batch)` is
//! what the pass allocates from the caching allocator (freed when the call returns); the
//! fallback to plans with smaller workspaces when one does not fit is not modelled
//! (`allocator::step`: the planner keeps the safe bound). The workspace shares
//! (`perf.cudnn.workspace_*`) are first values read off HybridSN's peaks, assuming the
//! workspace peaks with the tensors.

use serde::{Deserialize, Serialize};

use crate::analysis::{ConvShape, LayerReport};
use crate::assumptions::CudnnAssumptions;
use crate::choices::Precision;
use crate::gpu::GpuSpec;

/// The math unit conv and matmul run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MathMode {
    Fp32,
    Tf32,
    /// FP16 or BF16 tensor cores.
    Half,
}

/// Which unit each kind of layer uses, whether autocast casts around them, and how cuDNN
/// picks its convolution algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Maths {
    pub conv: MathMode,
    pub matmul: MathMode,
    pub autocast: bool,
    /// `torch.backends.cudnn.benchmark`: the fastest algorithm is timed and kept.
    pub cudnn_benchmark: bool,
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
            ..Maths::fp32()
        }
    }

    pub fn fp32() -> Maths {
        Maths {
            conv: MathMode::Fp32,
            matmul: MathMode::Fp32,
            autocast: false,
            cudnn_benchmark: false,
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
            ..Maths::fp32()
        }
    }

    /// How a scenario's precision runs on a card (cuDNN's heuristics pick, PyTorch's
    /// default; `benchmarked` for timed algorithms).
    pub fn of(precision: Precision, gpu: &GpuSpec) -> Maths {
        match precision {
            Precision::TorchDefault => Maths::torch_default(gpu),
            Precision::Fp32 => Maths::fp32(),
            Precision::Tf32 => Maths::tf32(gpu),
            Precision::AmpFp16 => Maths::half(true, true),
            Precision::AmpBf16 => Maths::half(gpu.bf16, true),
            Precision::Bf16 => Maths::half(gpu.bf16, false),
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
            cudnn_benchmark: false,
        }
    }

    /// The same with `cudnn.benchmark` set to `on`.
    pub fn benchmarked(self, on: bool) -> Maths {
        Maths {
            cudnn_benchmark: on,
            ..self
        }
    }
}

/// One pass of a convolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pass {
    Forward,
    /// The input gradient (`cudnnConvolutionBackwardData`).
    BackwardData,
    /// The weight gradient (`cudnnConvolutionBackwardFilter`).
    BackwardFilter,
}

/// Channel multiple 16-bit tensor-core convolution kernels need.
const TENSOR_CORE_CHANNELS: u64 = 8;

/// The algorithm PyTorch runs for one pass of one convolution.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PassAlgo {
    pub pass: Pass,
    /// The unit it runs on (FP32 CUDA cores where the heuristics pick those).
    pub math: MathMode,
    /// Work it does over the pass's counted FLOPs (`torch.utils.flop_counter`'s): input
    /// positions / output positions for a backward data over the whole input, else 1.
    pub work_factor: f64,
    /// Its implicit GEMM's N (output channels of the pass: the input's for backward data)
    /// and K (the reduction per output: input channels x kernel volume, or output
    /// channels x kernel volume for backward data), per group.
    pub gemm_n: f64,
    pub gemm_k: f64,
    /// Its time over the fastest algorithm's at the same work and unit (1 when timed).
    pub slowdown: f64,
    /// Workspace per sample, bytes (see `workspace_bytes`).
    pub workspace_per_sample: f64,
}

impl PassAlgo {
    /// Workspace the pass allocates at `batch`, bytes (freed when the call returns).
    pub fn workspace_bytes(&self, batch: u64) -> f64 {
        self.workspace_per_sample * batch as f64
    }
}

/// A 3-D convolution whose kernel spans all three dimensions: none of extent 1, and no
/// two neighbouring ones with a unit window (kernel, stride and dilation 1, no padding),
/// which would fold into one and make it a 2-D convolution.
pub fn spans_three_dims(c: &ConvShape) -> bool {
    if c.input.len() != 3 {
        return false;
    }
    let unit =
        |d: usize| c.kernel[d] == 1 && c.stride[d] == 1 && c.padding[d] == 0 && c.dilation[d] == 1;
    let flat = (0..3).any(|d| c.input[d] == 1 && c.output[d] == 1);
    let folds = (unit(0) && unit(1)) || (unit(1) && unit(2));
    !flat && !folds
}

/// The algorithm of each pass a convolution runs in backward and forward, in the order
/// forward, backward data (when its input needs a gradient), backward filter (when its
/// weight trains). `maths.conv` is the unit the precision allows.
pub fn conv_algos(c: &ConvShape, maths: Maths, a: &CudnnAssumptions) -> Vec<PassAlgo> {
    let groups = c.groups.max(1) as f64;
    let kvol: f64 = c.kernel.iter().map(|&k| k as f64).product();
    let cin = c.in_channels as f64 / groups;
    let cout = c.out_channels as f64 / groups;
    let in_pos: f64 = c.input.iter().map(|&d| d as f64).product();
    let out_pos: f64 = c.output.iter().map(|&d| d as f64).product();
    let heuristic_3d = !maths.cudnn_benchmark && spans_three_dims(c);
    // 16-bit tensor-core kernels need channel counts in multiples of 8 (NVIDIA,
    // "Convolutional Layers User's Guide", channels for Tensor Cores): in cuDNN's NCDHW
    // 3-D path others run on CUDA cores, timed or not (DBDA's 12-60 channels: its bf16
    // steps ran as long as its TF32 ones).
    let aligned = |channels: u64| channels.is_multiple_of(TENSOR_CORE_CHANNELS);
    let unaligned_half = maths.conv == MathMode::Half
        && c.input.len() == 3
        && !(aligned(c.in_channels) && aligned(c.out_channels));
    // The heuristics' CUDA-core algorithms for 3-D kernels, in TF32 as in FP32.
    let math = if unaligned_half || (heuristic_3d && maths.conv == MathMode::Tf32) {
        MathMode::Fp32
    } else {
        maths.conv
    };
    let slowdown = if heuristic_3d && maths.conv == MathMode::Fp32 {
        a.heuristic_fp32_slowdown
    } else {
        1.0
    };
    // cuDNN runs a 1-D convolution as a 2-D one (ATen's `view4d`); untimed in FP32 or
    // TF32 those take a pick that lowers its input, as 3-D ones on CUDA cores do.
    let untimed_flat =
        c.input.len() <= 2 && kvol > 1.0 && math != MathMode::Half && !maths.cudnn_benchmark;
    let workspace_share = if untimed_flat || (spans_three_dims(c) && math == MathMode::Fp32) {
        a.workspace_cuda_core
    } else if spans_three_dims(c) {
        a.workspace_tensor_core
    } else {
        0.0
    };
    // The lowered input (im2col) matrix: input channels x kernel volume per output
    // position.
    let lowered = c.in_channels as f64 * kvol * out_pos * c.element_bytes as f64;
    let pass = |pass: Pass, work_factor: f64, gemm_n: f64, gemm_k: f64| PassAlgo {
        pass,
        math,
        work_factor,
        gemm_n,
        gemm_k,
        slowdown,
        workspace_per_sample: workspace_share * lowered,
    };
    let mut out = vec![pass(Pass::Forward, 1.0, cout, cin * kvol)];
    if c.input_grad {
        // On CUDA cores the heuristics' backward data runs over the whole input; 16-bit
        // tensor-core kernels need channel counts in multiples of 8 (NVIDIA, "Convolutional
        // Layers User's Guide", channels for Tensor Cores), so fewer input channels land
        // there too.
        let cuda_cores =
            math == MathMode::Fp32 || !c.in_channels.is_multiple_of(TENSOR_CORE_CHANNELS);
        out.push(if heuristic_3d && cuda_cores {
            PassAlgo {
                math: MathMode::Fp32,
                ..pass(
                    Pass::BackwardData,
                    in_pos / out_pos.max(1.0),
                    cin,
                    cout * kvol,
                )
            }
        } else {
            pass(Pass::BackwardData, 1.0, cout, cin * kvol)
        });
    }
    if c.weight_grad {
        out.push(pass(Pass::BackwardFilter, 1.0, cout, cin * kvol));
    }
    out
}

/// Every convolution pass of a model with its workspace: (layer index, algorithm), in
/// layer order. What the caching allocator sees cuDNN ask for (`memory`).
pub fn workspaces(
    layers: &[LayerReport],
    maths: Maths,
    a: &CudnnAssumptions,
) -> Vec<(usize, PassAlgo)> {
    let mut out = Vec::new();
    for (i, l) in layers.iter().enumerate() {
        if let Some(c) = &l.conv {
            for pass in conv_algos(c, maths, a) {
                out.push((i, pass));
            }
        }
    }
    out
}
