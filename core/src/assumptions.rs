//! The Scenario's assumption sections (`workload`, `memory`, `perf` with `perf.scaling`,
//! `cost`): every constant the estimate cannot derive, with its default and allowed range.
//! Each field is named once, in its `json_struct!`: reading, writing, checking and the
//! page's field list follow from it. To add an assumption, add one line here.

use crate::choices::{Currency, ParallelMode};
use crate::json::json_struct;

const MIB: f64 = (1u64 << 20) as f64;
/// Upper bound of the money fields, USD.
const MONEY: f64 = 1e7;

/// The least caching-allocator overhead counted, as a fraction of activations +
/// transient: the simulated allocator (`allocator`) gives the overhead, this is its floor
/// (`torch.cuda.max_memory_reserved / max_memory_allocated` on a real run is typically a
/// few to ~15 % above 1).
pub const DEFAULT_FRAGMENTATION: f64 = 0.05;
/// Memory the driver keeps on the card (ECC reserve, display). 0 by default: the catalog
/// gives physical memory; set it from `nvidia-smi` (total - usable) for your box.
pub const DEFAULT_DRIVER_RESERVED_BYTES: u64 = 0;
/// Effective-bandwidth loss of inline GDDR ECC when it is on (CUDA C++ Best Practices
/// Guide, "Theoretical Bandwidth Calculation": "approximately 20 %", higher for some
/// access patterns). HBM's ECC costs nothing.
pub const DEFAULT_GDDR_ECC_BANDWIDTH_LOSS: f64 = 0.20;
/// CNY per USD for prices seen in China and for showing costs in CNY: a rough late-2025 /
/// 2026 rate. Set today's.
pub const DEFAULT_CNY_PER_USD: f64 = 7.1;

json_struct! {
    /// What is trained, for how long: drives epoch time, sweeps and cost.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Workload {
        pub mode: ParallelMode = ParallelMode::Ddp,
        /// Fraction of the labeled pixels used for training (0..1].
        pub train_fraction: f64 [1e-6, 1.0] = 0.1,
        pub epochs: u32 [1, 100_000] = 100,
        /// Runs in a hyper-parameter sweep (K).
        pub sweep_runs: u32 [1, 100_000] = 8,
        /// Gradient-accumulation micro-steps per optimizer step.
        pub grad_accum_steps: u32 [1, 4096] = 1,
    }
}

json_struct! {
    /// Memory-model constants that cannot be derived; each is documented where it is used
    /// (see `memory.rs`) and can be overridden here.
    #[derive(Clone, Debug, PartialEq)]
    pub struct MemoryAssumptions {
        /// Fraction of card memory kept free when computing the largest batch (0.2 = 20 %).
        pub headroom: f64 [0.0, 0.9] = 0.20,
        /// CUDA context + PyTorch/cuDNN/cuBLAS kernels and handles, bytes; none: the
        /// card's (`GpuSpec::cuda_context_bytes`).
        pub cuda_context_bytes: Option<u64> [0, 1 << 36] = None,
        /// Least caching-allocator overhead, as a fraction of activations + transient.
        pub fragmentation: f64 [0.0, 1.0] = DEFAULT_FRAGMENTATION,
        /// Bytes of the card's memory that the driver keeps for itself (not usable by CUDA).
        pub driver_reserved_bytes: u64 [0, 1 << 36] = DEFAULT_DRIVER_RESERVED_BYTES,
        /// Effective-bandwidth loss of inline GDDR ECC when `ecc` is on (0.2 = 20 %).
        pub ecc_bandwidth_loss: f64 [0.0, 0.9] = DEFAULT_GDDR_ECC_BANDWIDTH_LOSS,
    }
}

json_struct! {
    /// Efficiency factors that cannot be derived (see `perf.rs` and `device.rs`): fitted
    /// on published training throughput (core/tests/published_steps_fit.rs, checked by
    /// core/tests/published_steps.rs; docs/validation.md has the fit and the held-out
    /// error). Every field is user-editable.
    #[derive(Clone, Debug, PartialEq)]
    pub struct PerfAssumptions {
        /// Fraction of the tensor-core or FP32 peak large GEMMs (linear, matmul,
        /// attention) reach. cuBLAS reaches 60-80 % of datasheet peak on large problems
        /// (NVIDIA "Matrix Multiplication Background" guide); fitted 0.64 on whole
        /// training steps, where boost clocks are rarely sustained.
        pub compute_efficiency: f64 [0.01, 1.0] = 0.64,
        /// Work, in seconds at peak, at which a kernel reaches half of its efficiency.
        /// 2 us puts a 1024^3 GEMM (2.1 GFLOP) on an A100's tensor cores at about 54 % of
        /// its efficiency and a 4096^3 one near all of it, the shape of published cuBLAS
        /// size sweeps. Rough calibration.
        pub efficiency_ramp_s: f64 [0.0, 1e-2] = 2e-6,
        /// Fraction of datasheet bandwidth a training step's streaming kernels reach
        /// (STREAM-like copies reach 80-90 %; fitted 0.79 on whole steps with
        /// `device.memory_issue_per_kib`, 0.68 without it).
        pub memory_efficiency: f64 [0.01, 1.0] = 0.79,
        /// Least GPU time of one kernel, seconds: the gap between back-to-back kernels
        /// and a wave of tiny thread blocks. The CPU's own cost per op is `perf.host`.
        /// Rough.
        pub kernel_launch_s: f64 [0.0, 1e-2] = 2.5e-6,
        /// Kernels one optimizer update launches; None = the default for the optimizer
        /// (`default_optimizer_kernels`).
        pub optimizer_kernels: Option<u32> [0, 100_000] = None,
        pub device: DeviceAssumptions = DeviceAssumptions::default(),
        pub cudnn: CudnnAssumptions = CudnnAssumptions::default(),
        pub host: HostAssumptions = HostAssumptions::default(),
        pub pipeline: PipelineAssumptions = PipelineAssumptions::default(),
        pub scaling: ScalingAssumptions = ScalingAssumptions::default(),
    }
}

json_struct! {
    /// Device efficiency and memory passes by op class (see `device.rs`), fitted on the
    /// fit points of core/tests/fixtures/published_steps.json. Every field is
    /// user-editable.
    #[derive(Clone, Debug, PartialEq)]
    pub struct DeviceAssumptions {
        /// Fraction of the tensor-core peak cuDNN's 1-D/2-D convolutions reach.
        pub conv_efficiency: f64 [0.01, 1.0] = 0.81,
        /// Fraction of the FP32 CUDA-core peak convolutions reach in FP32, counted in
        /// direct-convolution FLOPs (Winograd and FFT kernels do fewer multiplies for 3x3
        /// kernels, so this reaches more than a GEMM does, and may pass 1; the published
        /// fit stops at 1).
        pub fp32_conv_efficiency: f64 [0.01, 4.0] = 1.0,
        /// 3-D convolutions on tensor cores reach this fraction of what 2-D ones reach
        /// (cuDNN's 3-D tensor-core kernels are far less tuned), before their channel
        /// counts' share below (refitted with it; 0.81 x 0.38 = 0.30 of the TF32 peak, as
        /// the H200's widest layers reach).
        pub conv3d_tensor_factor: f64 [0.01, 1.0] = 0.38,
        /// The same on FP32 CUDA cores (the fit runs into the bound 1 on V100's FP32
        /// 3-D U-Net; the H200's widest FP32 layers reach 0.5 of its FP32 peak).
        pub conv3d_fp32_factor: f64 [0.01, 1.0] = 1.0,
        /// Output channels (per group) at which a 3-D convolution on tensor cores reaches
        /// half its rate, and input channels x kernel volume likewise: its implicit
        /// GEMM's N and K, rate x N / (N + this) x K / (K + `conv3d_depth_half`). Fitted
        /// on 8 C -> C convolutions per precision timed on an H200 (cuDNN 9.19,
        /// `tools/measure_conv.py`; fixture `measured_h200/conv.jsonl`): HSI CNNs' 8-32
        /// channels run 3-10x under the rate of 256.
        pub conv3d_channels_half: f64 [0.0, 4096.0] = 28.0,
        /// The same on FP32 CUDA cores, which fill their smaller tiles sooner.
        pub conv3d_fp32_channels_half: f64 [0.0, 4096.0] = 12.0,
        pub conv3d_depth_half: f64 [0.0, 65536.0] = 660.0,
        /// Fraction of the FP32 peak grouped and depthwise convolutions reach on CUDA
        /// cores with many multiply-adds per output: x K / (K + `grouped_depth_half`),
        /// K = input channels per group x kernel area (9 for a 3x3 depthwise kernel:
        /// 0.22 x 9 / 93 = 0.021 of the peak; 7x7: 0.081). The three `grouped_*`
        /// constants are fitted on the published points with the others held
        /// (MobileNet, EfficientNet, ConvNeXt, ResNeXt, RegNet; docs/validation.md).
        pub grouped_efficiency: f64 [0.01, 1.0] = 0.22,
        /// K at which a grouped or depthwise convolution on CUDA cores reaches half of
        /// `grouped_efficiency` (each output's fixed cost shared by K multiply-adds).
        pub grouped_depth_half: f64 [0.0, 65536.0] = 84.0,
        /// Output channels per group at which a 16-bit grouped convolution on tensor
        /// cores reaches half of `conv_efficiency` (one narrow GEMM per group:
        /// ResNeXt's 4 channels 0.085, RegNet's 24-64 0.36-0.6).
        pub grouped_channels_half: f64 [0.0, 4096.0] = 43.0,
        /// Device-memory traffic of a convolution over its input + output + weights
        /// (tiles re-read, the weight-gradient pass reading both again).
        pub conv_traffic: f64 [1.0, 10.0] = 1.66,
        /// Traffic factor of normalisation over input + output (statistics read the input
        /// once more in forward; backward makes more passes).
        pub norm_passes: f64 [1.0, 10.0] = 1.76,
        /// Passes over input and output of the NCHW <-> NHWC transposes around a
        /// half-precision convolution (none with `channels_last`).
        pub transpose_passes: f64 [0.0, 10.0] = 1.76,
        /// Passes over attention's N x heads x T x T scores (write, softmax, read by the
        /// second matmul, dropout; backward again), forward and backward together.
        pub attention_score_passes: f64 [0.0, 64.0] = 24.0,
        /// L2 bandwidth over device-memory bandwidth, for the share of a layer's traffic
        /// the card's L2 can hold.
        pub l2_speedup: f64 [1.0, 20.0] = 2.72,
        /// Warp instructions a pass issues per KiB it moves (addresses, conversions,
        /// reductions), at 4 per SM a clock (`GpuSpec::warp_issue_per_s`), on top of the
        /// bytes' time at `memory_efficiency`: mostly hidden where a card issues much per
        /// KiB of bandwidth (RTX 4090: 1,311), not on an A100 SXM (306) or an H200 (223).
        /// Fitted with `memory_efficiency` on the published fit points
        /// (docs/validation.md): without it ResNet-50 in AMP came out 6-17 % fast on the
        /// A100s and 14-29 % slow on the GDDR cards (A10, 3090, A6000, 4090). Copies
        /// (views written out) are left out: an H200 copied at 89 % of its bandwidth.
        pub memory_issue_per_kib: f64 [0.0, 10000.0] = 115.5,
        /// Fraction of its unit's peak a fused attention core (SDPA) reaches on Hopper,
        /// forward and backward. PyTorch's flash and memory-efficient kernels are built
        /// for sm80 (synchronous `mma.sync`, no TMA or `wgmma`): FlashAttention-2 reaches
        /// 50-73 % of the A100's peak (Dao, arXiv:2307.08691) but "only 35 % utilization
        /// on the H100" (FlashAttention-3, Shah et al., arXiv:2407.08608). Sourced, not
        /// fitted; elsewhere the core runs at `compute_efficiency` like a GEMM.
        pub hopper_fused_attention_efficiency: f64 [0.01, 1.0] = 0.35,
        /// The model runs channels_last (NHWC): no transposes around 16-bit convolutions.
        pub channels_last: bool = false,
    }
}

json_struct! {
    /// cuDNN's convolution algorithms without `cudnn_benchmark` and their workspaces (see
    /// `cudnn.rs`): fitted on the H200 steps of the fit models (HybridSN,
    /// core/tests/measured_h200.rs), checked on the held-out ones. Every field is
    /// user-editable.
    #[derive(Clone, Debug, PartialEq)]
    pub struct CudnnAssumptions {
        /// Time of the heuristics' FP32 algorithm for a 3-D convolution whose kernel spans
        /// three dimensions over the timed one's (HybridSN's FP32 step ran 5.9x slower
        /// untimed; the model 5.94x with this).
        pub heuristic_fp32_slowdown: f64 [1.0, 100.0] = 5.15,
        /// cuDNN's 3-D convolution kernels on Hopper's CUDA cores reach this fraction of
        /// the rate the published (Ampere, Volta) 3-D U-Net points set: the median over
        /// the H200's 8 C -> C convolutions in FP32 (`measured_h200/conv.jsonl`).
        pub hopper_conv3d_fp32_factor: f64 [0.01, 4.0] = 0.51,
        /// The same on tensor cores (the median over the sweep's TF32 and bf16 ones).
        pub hopper_conv3d_tensor_factor: f64 [0.01, 4.0] = 0.86,
        /// cuDNN's 2-D convolutions (NCHW) on Hopper's CUDA cores reach this fraction of
        /// the rate fitted on Ampere and Volta: the H200's single 2-D convolutions
        /// (`measured_h200/conv.jsonl`) ran 2.7-4x slower than that rate; fitted on the
        /// fit models' Hopper steps (HybridSN on the H200).
        pub hopper_conv2d_fp32_factor: f64 [0.01, 4.0] = 0.5,
        /// The same on tensor cores (single convolutions 4-6x slower than the Ampere rate);
        /// fitted on ResNet-50's Hopper steps (H200 and the published H100 fit points).
        pub hopper_conv2d_tensor_factor: f64 [0.01, 4.0] = 0.3,
        /// Elements of its lowered operand a narrow convolution's implicit GEMM reads per
        /// second on CUDA cores, as a share of the card's bandwidth in 4-byte words: C -> C
        /// 3-D convolutions with 4-32 channels read 1.4-1.7 TB/s of it on an H200, whatever
        /// C (median 0.36 of its 4.8 TB/s; `measured_h200/conv.jsonl`). Bounds a backward
        /// data over few input channels.
        pub lowered_rate_fp32: f64 [0.01, 10.0] = 0.36,
        /// The same on tensor cores (TF32 and bf16: 0.34-1.6 x 10^12 elements/s, median
        /// 0.77 of the bandwidth in words).
        pub lowered_rate_tensor: f64 [0.01, 10.0] = 0.77,
        /// Workspace of a CUDA-core (FP32) algorithm for such a convolution, as a fraction
        /// of its lowered (im2col) input: fitted on HybridSN's largest-batch sweep in
        /// PyTorch's default precision (a fit model; its allocated peak within 2 % from
        /// batch 2,048 to 8,192, where it grows by 8.5 MB per sample, about 4.9 MB above
        /// its tensors; 0.39 before, read off its batch-256 steps, came out 19 % low there).
        /// Untimed 1-D and 2-D convolutions in FP32 or TF32 take the same share.
        pub workspace_cuda_core: f64 [0.0, 16.0] = 0.54,
        /// The same for a tensor-core algorithm (timed TF32, 16 bit): about 0.8 MB per
        /// sample on HybridSN.
        pub workspace_tensor_core: f64 [0.0, 16.0] = 0.07,
        /// Workspace of each cuDNN RNN call (forward, backward), allocated and freed around
        /// it, in hidden-sized values per step, sample, layer and direction (the layer's
        /// `rnn_step_bytes`): not published; fitted on the GRU's two FP32 H200 steps (its
        /// bf16 steps held out, docs/validation.md).
        pub rnn_workspace_per_step: f64 [0.0, 100.0] = 18.0,
        /// Fraction of the card's FP32 peak a persistent cuDNN RNN kernel's hidden-state
        /// products reach (`device.rs`, `LayerReport::persistent_steps`): not published; fitted
        /// on the GRU's FP32 H200 step at batch 512 (its step at batch 64 waits for the
        /// host; its bf16 steps held out, docs/validation.md).
        pub rnn_persistent_efficiency: f64 [0.0001, 1.0] = 0.013,
    }
}

json_struct! {
    /// The CPU's cost per step in PyTorch's eager mode on the reference (workstation)
    /// core, seconds (see `host.rs` for sources). Every field is user-editable. The
    /// per-op and per-step figures are the first estimates (14, 10, 7, 0.4 and 150 us)
    /// times 2.28, the median measured / estimated host time per step of 32 steps of the
    /// fit models on an H200 machine (PyTorch 2.11, a server-class Xeon;
    /// core/tests/measured_h200.rs; 2.35 before attention's head views were counted),
    /// checked on 37 held-out steps of other models.
    #[derive(Clone, Debug, PartialEq)]
    pub struct HostAssumptions {
        /// Per forward kernel (and per layer that launches none): module call, dispatch,
        /// launch.
        pub op_forward_s: f64 [0.0, 1e-2] = 31.9e-6,
        /// Per backward kernel and per parameter's gradient accumulation: autograd node
        /// and launch.
        pub op_backward_s: f64 [0.0, 1e-2] = 22.8e-6,
        /// Optimizer `for` loop: per parameter tensor and single-tensor op.
        pub optimizer_op_s: f64 [0.0, 1e-2] = 16e-6,
        /// Optimizer `foreach`: per parameter tensor and `_foreach_*` op.
        pub foreach_tensor_s: f64 [0.0, 1e-2] = 0.91e-6,
        /// The optimizer uses `foreach` (PyTorch >= 2.0 default on CUDA).
        pub foreach: bool = true,
        /// `zero_grad()` drops gradients (`set_to_none=True`, PyTorch >= 2.0 default)
        /// instead of zeroing each with a kernel.
        pub zero_grad_to_none: bool = true,
        /// Per step: `loss.item()` round trip, the Python loop, logging.
        pub step_fixed_s: f64 [0.0, 1.0] = 342e-6,
        /// Per `cudnnGetRNNWeightParams` call: PyTorch's cuDNN RNN reads each weight
        /// matrix's and bias's place in the flat buffer 100 times over (`get_parameters`,
        /// aten/src/ATen/native/cudnn/RNN.cpp, cuDNN >= 8.9.7), once a backward and, under
        /// autocast, once a forward: 1,200 calls a step for a one-layer GRU. Fitted on one
        /// H200 GRU step (PyTorch's default precision, batch 64); its other steps held out.
        pub rnn_weight_query_s: f64 [0.0, 1e-3] = 0.26e-6,
        /// Once per run: CUDA context and library start on the first CUDA call with lazy
        /// module loading (CUDA >= 11.7; pytorch PR 86509). Without it, seconds.
        pub startup_s: f64 [0.0, 600.0] = 0.5,
    }
}

json_struct! {
    /// Input-pipeline costs on the reference core, seconds (see `pipeline.rs`;
    /// `tools/bench_pipeline.py` measures them on your CPU). Every field is
    /// user-editable.
    #[derive(Clone, Debug, PartialEq)]
    pub struct PipelineAssumptions {
        /// `__getitem__` of a pre-cut patch tensor: index, label, collate share. This and
        /// the next three: the lines through the 18 points of `tools/bench_pipeline.py`'s
        /// three committed runs (core/tests/pipeline_bench.rs).
        pub precut_sample_s: f64 [0.0, 1.0] = 4.4e-6,
        /// `__getitem__` cutting a patch from the cube: Python, slicing, wrappers.
        pub cut_sample_s: f64 [0.0, 1.0] = 4.9e-6,
        /// Per byte of a patch, pre-cut or cut: the collate's copy.
        pub byte_s: f64 [0.0, 1e-6] = 0.28e-9,
        /// Per byte of a patch cut from the cube, beyond that: the window's strided copy
        /// and transpose.
        pub cut_byte_s: f64 [0.0, 1e-6] = 0.12e-9,
        /// Per sample when augmented: the random draws, the flipped/rotated views.
        pub augment_sample_s: f64 [0.0, 1.0] = 10.5e-6,
        /// Per byte of a patch when augmented (beyond the cut's own copy).
        pub augment_byte_s: f64 [0.0, 1e-6] = 0.034e-9,
        /// Per batch the main process receives from a worker: unpickling the batch and
        /// its shared-memory handles. (The collate call's own share is in the per-sample
        /// costs.)
        pub batch_s: f64 [0.0, 1.0] = 1.05e-3,
        /// Per batch byte the main process receives from a worker: its first touch of
        /// the shared pages and their unmapping once freed.
        pub worker_byte_s: f64 [0.0, 1e-6] = 0.26e-9,
        /// Per batch byte a worker collates into shared memory beyond collating in the
        /// main process: fresh shared pages, faulted in and zeroed for every batch.
        pub shared_byte_s: f64 [0.0, 1e-6] = 0.61e-9,
        /// Fraction of the PCIe rate a pageable (not pinned) copy reaches.
        pub pageable_factor: f64 [0.01, 1.0] = 0.5,
        /// Fraction of the PCIe x16 rate a pinned host-to-device copy reaches.
        pub pcie_efficiency: f64 [0.01, 1.0] = 0.8,
        /// Host ops per step that gather a batch from a cube resident on the GPU.
        pub gpu_gather_ops: f64 [0.0, 1000.0] = 4.0,
    }
}

json_struct! {
    /// How the run feeds its model and loops (see `pipeline.rs` and `steptime.rs`).
    #[derive(Clone, Debug, PartialEq)]
    pub struct Pipeline {
        /// DataLoader worker processes (0 = the main process loads).
        pub num_workers: u32 [0, 256] = 0,
        /// Cores the run may use; None = the CPU class's (shared by parallel runs).
        pub cores: Option<u32> [1, 1024] = None,
        /// Random flips / rotations per patch.
        pub augmentation: bool = false,
        /// The whole cube lives on the GPU and patches are gathered there (costs
        /// H x W x B x 4 bytes of device memory).
        pub cube_on_gpu: bool = false,
        /// Patches are cut once before training (SSFTT, HybridSN scripts) rather than per
        /// sample from the cube (DeepHyperX).
        pub precut: bool = true,
        /// `pin_memory=True`: batches copy at the full PCIe rate.
        pub pin_memory: bool = false,
        /// The loop syncs every step (`loss.item()`), as most HSI scripts do.
        pub sync_every_step: bool = true,
        /// A synthetic batch already on the device (benchmarks, `tools/measure.py`): no
        /// input cost at all.
        pub synthetic: bool = false,
    }
}

json_struct! {
    /// Link and NCCL constants that cannot be derived (see `scaling.rs`). Every field is
    /// user-editable.
    #[derive(Clone, Debug, PartialEq)]
    pub struct ScalingAssumptions {
        /// Fraction of the PCIe x16 one-way rate (3: 15.75, 4: 31.5, 5: 63 GB/s, from the
        /// 8/16/32 GT/s lane rate and 128b/130b coding) that NCCL's ring reaches with
        /// peer-to-peer. Rough: nccl-tests all_reduce busbw on PCIe boxes is 65-80 % of it.
        pub pcie_efficiency: f64 [0.01, 1.0] = 0.70,
        /// Bandwidth factor, relative to peer-to-peer, when the driver forbids P2P (GeForce
        /// 40-series, RTX 5090) and NCCL stages every chunk through pinned host memory
        /// (an extra copy and host-memory traffic). Fitted on nccl-tests' all_reduce on
        /// 2x RTX 2080 Ti over PCIe 3.0 x16 without P2P: 4.00 GB/s busbw = 0.363 x 0.70
        /// x 15.75 GB/s (fixtures/parallel_published.json; the rough guess was 0.5).
        pub host_staged_factor: f64 [0.01, 1.0] = 0.363,
        /// Fraction of NVLink's one-way rate the ring reaches. nccl-tests on A100 SXM report
        /// about 230 GB/s busbw of 300 GB/s one-way (0.77).
        pub nvlink_efficiency: f64 [0.01, 1.0] = 0.77,
        /// Latency per ring step, seconds (a ring all-reduce has 2(N-1) steps). Rough: small
        /// all-reduces in nccl-tests take tens of microseconds on 8 cards.
        pub hop_latency_s: f64 [0.0, 1e-2] = 5e-6,
        /// DDP bucket size, bytes (`bucket_cap_mb=25`).
        pub bucket_bytes: f64 [1024.0, 1e10] = 25.0 * MIB,
        /// DDP's first, smaller bucket, bytes (`dist._DEFAULT_FIRST_BUCKET_BYTES` = 1 MiB).
        pub first_bucket_bytes: f64 [1024.0, 1e10] = MIB,
        /// How much of the all-reduce the bucket schedule can hide behind backward: 1 = all
        /// the schedule allows (DDP's design), 0 = none (frameworks that all-reduce after
        /// backward, e.g. TF1 tf_cnn_benchmarks). Exposed time =
        /// bucket-exposed + (1 - overlap) x (total - bucket-exposed).
        pub overlap: f64 [0.0, 1.0] = 1.0,
        /// DDP's own cost per bucket and step beyond the all-reduce, seconds: the copies
        /// into and out of the flat bucket, the NCCL launch, the reducer's hooks. Rough:
        /// tens of microseconds.
        pub bucket_overhead_s: f64 [0.0, 1e-2] = 60e-6,
        /// Waiting for the slowest rank, as a fraction of the step per doubling of the
        /// cards (clock, thermal and input jitter between ranks). Fitted on the
        /// multi-card points of core/tests/fixtures/published_steps.json, where 1-card and
        /// 2-8-card steps of the same run are 1-6 % apart with the all-reduce hidden.
        pub straggler_fraction: f64 [0.0, 0.5] = 0.02,
        /// Fraction of the node network's line rate NCCL reaches; None = the link's
        /// (`NodeLink::efficiency`: 0.94 over RDMA, 0.6 over TCP sockets).
        pub network_efficiency: Option<f64> [0.01, 1.0] = None,
        /// Latency per inter-node step, seconds; None = the link's
        /// (`NodeLink::latency_s`: 10 us over RDMA, 40 us over TCP sockets).
        pub network_latency_s: Option<f64> [0.0, 1e-2] = None,
        /// Parameters the host's CPU Adam updates per second with ZeRO-Offload, shared by
        /// the node's ranks (DeepSpeedCPUAdam, AVX-512, all cores): about 28 bytes of host
        /// memory traffic per parameter at ~130 GB/s. Rough.
        pub cpu_adam_params_per_s: f64 [1e6, 1e12] = 4.5e9,
        /// ZeRO's reduce / all-gather bucket, elements (DeepSpeed `reduce_bucket_size`
        /// and `allgather_bucket_size`, default 5e8).
        pub zero_bucket_elements: f64 [1e3, 1e10] = 5e8,
    }
}

json_struct! {
    /// Prices and usage of the cost model (see `cost.rs`). Every price is a rough, dated
    /// default: set your own.
    #[derive(Clone, Debug, PartialEq)]
    pub struct CostAssumptions {
        /// Price of one card, USD; None = the card's dated street price, else its launch
        /// price (`market`; unknown for some cards).
        pub card_price_usd: Option<f64> [0.0, 1e6] = None,
        /// NVLink bridge(s) joining one pair of cards, USD, counted per bridged pair with
        /// `interconnect: "nvlink_bridge"`; None = the card's dated bridge price (`market`).
        pub bridge_usd_per_pair: Option<f64> [0.0, 1e5] = None,
        /// Workstation without GPUs: board, CPU, 64 GB RAM, SSD, case. Rough 2025 retail
        /// estimate, USD.
        pub platform_base_usd: f64 [0.0, MONEY] = 2000.0,
        /// Extra host RAM and storage per card (rule of thumb: host RAM >= 2 x GPU memory).
        /// Rough 2025 estimate, USD.
        pub platform_per_card_usd: f64 [0.0, MONEY] = 250.0,
        /// Premium for more than two cards: HEDT/server board and CPU with enough PCIe lanes
        /// and slot spacing (e.g. Threadripper PRO / Xeon W). Rough 2025 estimate, USD.
        pub multi_gpu_platform_usd: f64 [0.0, MONEY] = 3000.0,
        /// CPU, board, RAM, drives and fans under training load, W. Rough estimate.
        pub system_base_watts: f64 [0.0, 1e5] = 250.0,
        /// PSU capacity over the sustained draw (1.3 = 30 % margin for transients).
        pub psu_margin: f64 [1.0, 3.0] = 1.3,
        /// PSU price per watt of capacity: 80 PLUS Platinum 1000-1600 W units sell for roughly
        /// 0.2-0.3 USD/W (retail, 2025).
        pub psu_usd_per_watt: f64 [0.0, 100.0] = 0.25,
        /// Extra case fans / airflow per card. Rough 2025 estimate, USD.
        pub cooling_usd_per_card: f64 [0.0, MONEY] = 100.0,
        /// Electricity price, USD/kWh. US EIA Electric Power Monthly, 2024-2025 average retail
        /// prices: about 0.13 commercial, 0.16-0.17 residential.
        pub electricity_usd_per_kwh: f64 [0.0, 10.0] = 0.15,
        /// Cooling overhead on the power drawn (power usage effectiveness); 1.0 = none.
        /// Uptime Institute's 2024 survey: data-centre average about 1.56; an office with
        /// air conditioning is assumed lower.
        pub pue: f64 [1.0, 3.0] = 1.2,
        /// Fraction of the lifetime the cards are training (0..1].
        pub utilization: f64 [0.01, 1.0] = 0.5,
        pub lifetime_years: f64 [0.1, 20.0] = 4.0,
        /// Administration time for a one-card box (drivers, CUDA, failures), hours/month.
        pub ops_hours_per_month: f64 [0.0, 744.0] = 2.0,
        /// Extra administration per additional card (NCCL, PSU, thermals), hours/month.
        pub ops_hours_per_month_per_extra_card: f64 [0.0, 744.0] = 1.5,
        /// Cost of an engineer-hour, USD. Rough estimate.
        pub ops_usd_per_hour: f64 [0.0, 1e4] = 50.0,
        /// On-demand cloud rental per GPU-hour, USD; None = the card's dated cloud rate
        /// (`market`; unknown for some cards). Set the rate of your provider.
        pub cloud_usd_per_gpu_hour: Option<f64> [0.0, 1e3] = None,
        /// CNY per USD: converts prices seen in China and shows costs in CNY.
        pub cny_per_usd: f64 [0.01, 1000.0] = DEFAULT_CNY_PER_USD,
        /// The currency costs are shown in: usd or cny.
        pub currency: Currency = Currency::Usd,
        /// Expansion-slot positions of the workstation the cards go in: 8 in an EATX /
        /// SSI-EEB tower whose board has four double-spaced x16 slots (7 in a plain ATX
        /// tower).
        pub chassis_slots: u32 [1, 32] = 8,
        /// One network port between nodes: the NIC, its switch port and cable, USD. Rough
        /// 2025 street prices: 100-200 Gb/s adapters about 800-1500, a switch port and
        /// cable a few hundred; NDR more.
        pub network_usd_per_nic: f64 [0.0, MONEY] = 1500.0,
        /// Largest single power supply for the box, W: 1600 W is the largest common ATX
        /// unit (and about what one 120 V / 15 A circuit delivers continuously).
        pub max_psu_watts: f64 [100.0, 1e5] = 1600.0,
    }
}
