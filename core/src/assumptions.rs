//! The Scenario's assumption sections (`workload`, `memory`, `perf` with `perf.scaling`,
//! `cost`): every constant the estimate cannot derive, with its default and allowed range.
//! Each field is named once, in its `json_struct!`: reading, writing, checking and the
//! page's field list follow from it. To add an assumption, add one line here.

use crate::choices::{Currency, ParallelMode};
use crate::json::json_struct;

const MIB: f64 = (1u64 << 20) as f64;
/// Upper bound of the money fields, USD.
const MONEY: f64 = 1e7;

/// CUDA context plus PyTorch, cuDNN and cuBLAS kernels and handles, resident outside
/// `torch.cuda.max_memory_allocated`. About 300 MB with CUDA lazy module loading
/// (CUDA >= 11.7, pytorch PR 86509) plus cuDNN/cuBLAS handles on first use; other tools
/// use 650 MB-1000 MiB. Calibrate it with a measurement (`tools/`).
pub const DEFAULT_CUDA_CONTEXT_BYTES: u64 = 500 << 20;
/// Caching-allocator rounding and fragmentation as a fraction of activations + transient.
/// Rough default; `torch.cuda.max_memory_reserved / max_memory_allocated` on a real run
/// is typically a few to ~15 % above 1.
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
        /// CUDA context + PyTorch/cuDNN/cuBLAS kernels and handles, bytes.
        pub cuda_context_bytes: u64 [0, 1 << 36] = DEFAULT_CUDA_CONTEXT_BYTES,
        /// Caching-allocator fragmentation, as a fraction of the allocated peak.
        pub fragmentation: f64 [0.0, 1.0] = DEFAULT_FRAGMENTATION,
        /// Bytes of the card's memory that the driver keeps for itself (not usable by CUDA).
        pub driver_reserved_bytes: u64 [0, 1 << 36] = DEFAULT_DRIVER_RESERVED_BYTES,
        /// Effective-bandwidth loss of inline GDDR ECC when `ecc` is on (0.2 = 20 %).
        pub ecc_bandwidth_loss: f64 [0.0, 0.9] = DEFAULT_GDDR_ECC_BANDWIDTH_LOSS,
    }
}

json_struct! {
    /// Efficiency factors that cannot be derived (see `perf.rs`). Every field is
    /// user-editable.
    #[derive(Clone, Debug, PartialEq)]
    pub struct PerfAssumptions {
        /// Fraction of peak a large conv/GEMM reaches. cuBLAS/cuDNN reach roughly 60-80 % of
        /// the datasheet peak on large problems (NVIDIA "Matrix Multiplication Background"
        /// guide; boost clocks are rarely sustained). Rough.
        pub compute_efficiency: f64 [0.01, 1.0] = 0.70,
        /// Work, in seconds at peak, at which a kernel reaches half of `compute_efficiency`.
        /// It is also the least time a kernel with any work takes (ramp / efficiency, one
        /// "wave" of thread blocks). 2 us puts a 1024^3 GEMM (2.1 GFLOP) on an A100's tensor
        /// cores at about 54 % of peak and a 4096^3 one at 70 %, the shape of published cuBLAS
        /// size sweeps. Rough calibration.
        pub efficiency_ramp_s: f64 [0.0, 1e-2] = 2e-6,
        /// Fraction of datasheet bandwidth streaming kernels reach (STREAM-like copies reach
        /// 80-90 % on HBM and GDDR6/6X cards). Rough.
        pub memory_efficiency: f64 [0.01, 1.0] = 0.80,
        /// Least time one CUDA kernel costs, seconds: launch latency plus PyTorch's eager
        /// dispatch per op (several microseconds each). Dominates tiny HSI patches at small
        /// batch. Rough.
        pub kernel_launch_s: f64 [0.0, 1e-2] = 5e-6,
        /// Kernels one optimizer update launches; None = the default for the optimizer
        /// (`default_optimizer_kernels`).
        pub optimizer_kernels: Option<u32> [0, 100_000] = None,
        pub scaling: ScalingAssumptions = ScalingAssumptions::default(),
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
        /// (an extra copy and host-memory traffic). Rough assumption, not a measurement.
        pub host_staged_factor: f64 [0.01, 1.0] = 0.5,
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
        /// Largest single power supply for the box, W: 1600 W is the largest common ATX
        /// unit (and about what one 120 V / 15 A circuit delivers continuously).
        pub max_psu_watts: f64 [100.0, 1e5] = 1600.0,
    }
}
