//! GPU catalog: datasheet figures for every card in `shared/reference/facts.md`.
//!
//! Conventions:
//! - Memory is GiB-based: a "24 GB" card holds 24 x 2^30 bytes (what `nvidia-smi` and
//!   `torch.cuda.get_device_properties().total_memory` report, up to the driver reserve).
//! - Bandwidths and FLOP/s are decimal (1 GB/s = 1e9 B/s, 1 TFLOPS = 1e12 FLOP/s), dense
//!   (no 2:4 sparsity), at boost clock, as the datasheets print them.
//! - "FP16 tensor" is FP16/BF16 inputs with FP32 accumulate, the rate AMP training uses.
//!   GeForce cards run it at half their FP16-accumulate rate.
//! - NVLink bandwidth is the datasheet's total: both directions added (a 3090 bridge's
//!   "112.5 GB/s" is 56.25 GB/s each way). The ring all-reduce model uses one direction.
//! - `pcie_p2p`: whether the driver allows peer-to-peer DMA between two such cards over
//!   PCIe. GeForce cards do not get it: `p2pBandwidthLatencyTest` on an 8x RTX 3090
//!   PCIe server reports "CANNOT Access Peer" for every pair (NVIDIA/nccl issue 1127;
//!   efeslab/Nanoflow issue 22: "3090 does not support peer access"), and NVIDIA
//!   disabled it on the 40-series and the RTX 5090 (facts.md; NCCL issue reports of
//!   `NCCL_P2P_DISABLE` behaviour on 4090 boxes). NCCL then stages every transfer through
//!   host memory. A 3090 pair on an NVLink bridge talks over the bridge.

mod cards_2026;

use serde::Serialize;

use crate::choices::Precision;
use crate::warning::Warning;

const GIB: u64 = 1 << 30;
const GB_S: f64 = 1e9;
const TFLOPS: f64 = 1e12;

/// CUDA context plus PyTorch, cuDNN and cuBLAS kernels and handles, resident outside
/// `torch.cuda.max_memory_reserved`, on cards not measured: about 300 MB with CUDA lazy
/// module loading (CUDA >= 11.7, pytorch PR 86509) plus cuDNN/cuBLAS handles on first
/// use; other tools use 650 MB-1000 MiB. Calibrate it with a measurement (`tools/`).
pub const DEFAULT_CUDA_CONTEXT_BYTES: u64 = 500 << 20;

/// The same on Hopper cards, as measured on an H200 (PyTorch 2.11, CUDA 13.0, driver 580:
/// device memory in use less `memory_reserved`, 804-836 MB over 74 training steps,
/// `core/tests/fixtures/measured_h200/`): the largest of them.
pub const HOPPER_CUDA_CONTEXT_BYTES: u64 = 836_000_000;

/// How a card can join other cards over NVLink.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NvLink {
    None,
    /// A bridge joining exactly `cards_per_link` (2) PCIe cards; `total_gb_s` is the
    /// bridge's bandwidth, both directions added.
    Bridge {
        total_gb_s: f64,
        cards_per_link: u32,
    },
    /// SXM module: every card on NVLink (NVSwitch or hybrid cube mesh); `total_gb_s` is
    /// the per-GPU NVLink bandwidth, both directions added.
    Sxm {
        total_gb_s: f64,
    },
}

impl NvLink {
    /// Bandwidth one way, bytes/s (what one ring hop can carry).
    pub fn one_way_bytes_per_s(self) -> Option<f64> {
        match self {
            NvLink::None => None,
            NvLink::Bridge { total_gb_s, .. } | NvLink::Sxm { total_gb_s } => {
                Some(total_gb_s * GB_S / 2.0)
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct GpuSpec {
    pub id: &'static str,
    pub name: &'static str,
    pub memory_bytes: u64,
    pub memory_type: &'static str,
    pub bandwidth_bytes_per_s: f64,
    /// FP32 on CUDA cores.
    pub fp32_flops: f64,
    /// TF32 tensor cores; None where the card has none (Volta, Turing).
    pub tf32_flops: Option<f64>,
    /// FP16 (and BF16 where supported) tensor cores with FP32 accumulate.
    pub fp16_tensor_flops: f64,
    /// Native BF16 (Ampere and later).
    pub bf16: bool,
    pub nvlink: NvLink,
    /// PCIe generation of the x16 host link (SXM modules: the host link of the board).
    pub pcie_gen: u8,
    /// Peer-to-peer DMA over PCIe allowed by the driver (see the module doc).
    pub pcie_p2p: bool,
    pub tdp_watts: f64,
    pub ecc: bool,
    pub launch_price_usd: Option<f64>,
    pub source: &'static str,
    /// Fields without a primary source (names as in this struct).
    pub unverified: &'static [&'static str],
}

/// The peak a precision runs at on a card, and why it is not the one asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct PrecisionPeak {
    pub flops: f64,
    /// Set when the card lacks the requested unit and the peak falls back.
    pub warning: Option<Warning>,
}

impl GpuSpec {
    /// Peak conv/linear/matmul FLOP/s for a training precision: fp32 -> FP32 cores;
    /// tf32 -> TF32 tensor cores (FP32 if none); torch_default -> the convolutions'
    /// TF32 rate where the card has it, silently FP32 otherwise (matmuls stay FP32, see
    /// `device::Maths`); amp_fp16 -> FP16 tensor cores;
    /// amp_bf16 / bf16 -> the same tensor rate if the card has BF16, else FP32 (PyTorch
    /// emulates bf16 on pre-Ampere cards at roughly FP32 speed or worse).
    pub fn peak_flops(&self, precision: Precision) -> PrecisionPeak {
        let exact = |flops| PrecisionPeak {
            flops,
            warning: None,
        };
        match precision {
            Precision::Fp32 => exact(self.fp32_flops),
            Precision::TorchDefault => exact(self.tf32_flops.unwrap_or(self.fp32_flops)),
            Precision::Tf32 => match self.tf32_flops {
                Some(f) => exact(f),
                None => PrecisionPeak {
                    flops: self.fp32_flops,
                    warning: Some(Warning::NoTf32 {
                        gpu: self.name.into(),
                    }),
                },
            },
            Precision::AmpFp16 => exact(self.fp16_tensor_flops),
            Precision::AmpBf16 | Precision::Bf16 if self.bf16 => exact(self.fp16_tensor_flops),
            Precision::AmpBf16 | Precision::Bf16 => PrecisionPeak {
                flops: self.fp32_flops,
                warning: Some(Warning::NoBf16 {
                    gpu: self.name.into(),
                }),
            },
        }
    }

    /// FP32 lanes per SM: 64 on Volta, Turing and GA100 (A100, A800), whose SMs pair them
    /// with separate INT32 lanes; 128 on GA10x, Ada, Hopper and Blackwell (the
    /// architecture whitepapers). Every SM issues 4 warp instructions a clock either way.
    pub fn fp32_lanes_per_sm(&self) -> f64 {
        let narrow = ["v100", "a100", "a800"]
            .iter()
            .any(|p| self.id.starts_with(p))
            || ["t4", "rtx_2080_ti", "titan_rtx"].contains(&self.id);
        if narrow {
            64.0
        } else {
            128.0
        }
    }

    /// Warp instructions the card issues per second: 4 per SM a clock, SMs x clock being
    /// the FP32 peak over 2 x the lanes per SM.
    pub fn warp_issue_per_s(&self) -> f64 {
        4.0 * self.fp32_flops / (2.0 * self.fp32_lanes_per_sm())
    }

    /// A Hopper part (GH100: H100, H200, H800, H20).
    pub fn is_hopper(&self) -> bool {
        self.id == "h20"
            || ["h100", "h200", "h800"]
                .iter()
                .any(|p| self.id.starts_with(p))
    }

    /// What PyTorch's caching allocator holds for cuBLAS and cuBLASLt workspaces once
    /// the first matmul ran: on Hopper `CUBLAS_WORKSPACE_CONFIG`'s default `:4096:8`
    /// (32 MiB) for each, 64 MiB, as measured on an H200 with PyTorch 2.11 (models of a
    /// few MB peaked 62-67 MiB above the estimate; core/tests/measured_h200.rs). Other
    /// cards' default, `:4096:2:16:8` (about 8 MiB each), is left to the allocator term.
    pub fn blas_workspace_bytes(&self) -> f64 {
        if self.is_hopper() {
            (64u64 << 20) as f64
        } else {
            0.0
        }
    }

    /// The CUDA context and libraries' memory on this card where the scenario sets none:
    /// measured on Hopper (`HOPPER_CUDA_CONTEXT_BYTES`), the general default elsewhere.
    pub fn cuda_context_bytes(&self) -> u64 {
        if self.is_hopper() {
            HOPPER_CUDA_CONTEXT_BYTES
        } else {
            DEFAULT_CUDA_CONTEXT_BYTES
        }
    }

    /// Last-level (L2) cache, bytes, from the architecture whitepapers (GA102: 6 MB;
    /// GA104 and TU104: 4 MB; GV100: 6 MB; GA100: 40 MB; GH100: 50 MB; AD102 as cut for the
    /// 4090: 72 MB, for the RTX 6000 Ada / L40S: 96 MB; AD103: 64 MB; AD104: 48 MB;
    /// GB202 as cut for the 5090: 96 MB, full for the RTX PRO 6000: 128 MB; GB203: 64 MB,
    /// as cut for the 5070 Ti: 48 MB; TU102: 6 MB, as cut for the 2080 Ti: 5.5 MB; Orin:
    /// 4 MB; H20 60 MB and B200 126 MB as reported, not from a whitepaper).
    pub fn l2_bytes(&self) -> f64 {
        let mb = match self.id {
            "rtx_4090" | "rtx_4090_d" => 72.0,
            "rtx_4080" | "rtx_5080" => 64.0,
            "rtx_5090" | "rtx_6000_ada" | "l40s" | "l40" => 96.0,
            "rtx_pro_6000_bw" => 128.0,
            "l4" | "rtx_5070_ti" => 48.0,
            "rtx_2080_ti" => 5.5,
            "h20" => 60.0,
            "b200" => 126.0,
            "rtx_a4000" | "t4" => 4.0,
            id if id.starts_with("jetson") => 4.0,
            id if id.starts_with("a100") || id.starts_with("a800") => 40.0,
            _ if self.is_hopper() => 50.0,
            _ => 6.0,
        };
        mb * (1u64 << 20) as f64
    }

    /// Ridge point (FLOP per byte) of the roofline for a precision.
    pub fn ridge(&self, precision: Precision) -> f64 {
        self.peak_flops(precision).flops / self.bandwidth_bytes_per_s
    }
}

pub fn gpu_by_id(id: &str) -> Option<&'static GpuSpec> {
    GPUS.iter().find(|g| g.id == id)
}

pub fn gpu_ids() -> Vec<&'static str> {
    GPUS.iter().map(|g| g.id).collect()
}

const SRC_GEFORCE: &str = "NVIDIA GeForce product pages and Ada/Ampere/Blackwell architecture whitepapers (via TechPowerUp GPU database)";
const SRC_WORKSTATION: &str =
    "NVIDIA RTX workstation datasheets (via TechPowerUp GPU database, servethehome)";
const SRC_DATACENTER: &str =
    "NVIDIA datacenter datasheets (V100, T4, A10, L4, L40S, A100, H100; glennklockwood.com mirror)";

/// Bridge as sold for GA102 cards (3090, A4500-A6000): 112.5 GB/s both directions.
const GA102_BRIDGE: NvLink = NvLink::Bridge {
    total_gb_s: 112.5,
    cards_per_link: 2,
};
/// A100/H100 PCIe NVLink bridge: 600 GB/s both directions.
const DATACENTER_BRIDGE: NvLink = NvLink::Bridge {
    total_gb_s: 600.0,
    cards_per_link: 2,
};

/// Shorthand so each catalog row reads like the facts table.
#[allow(clippy::too_many_arguments)]
const fn card(
    id: &'static str,
    name: &'static str,
    gib: u64,
    memory_type: &'static str,
    gb_s: f64,
    fp32_tf: f64,
    tf32_tf: Option<f64>,
    fp16_tensor_tf: f64,
    bf16: bool,
    nvlink: NvLink,
    pcie_gen: u8,
    pcie_p2p: bool,
    tdp_watts: f64,
    ecc: bool,
    launch_price_usd: Option<f64>,
    source: &'static str,
    unverified: &'static [&'static str],
) -> GpuSpec {
    GpuSpec {
        id,
        name,
        memory_bytes: gib * GIB,
        memory_type,
        bandwidth_bytes_per_s: gb_s * GB_S,
        fp32_flops: fp32_tf * TFLOPS,
        tf32_flops: match tf32_tf {
            Some(t) => Some(t * TFLOPS),
            None => None,
        },
        fp16_tensor_flops: fp16_tensor_tf * TFLOPS,
        bf16,
        nvlink,
        pcie_gen,
        pcie_p2p,
        tdp_watts,
        ecc,
        launch_price_usd,
        source,
        unverified,
    }
}

#[rustfmt::skip]
const CARDS_TO_2024: [GpuSpec; 25] = [
    card("rtx_3090", "RTX 3090", 24, "GDDR6X", 936.0, 35.6, Some(35.6), 71.0, true, GA102_BRIDGE, 4, false, 350.0, false, Some(1499.0), SRC_GEFORCE, &[]),
    card("rtx_3090_ti", "RTX 3090 Ti", 24, "GDDR6X", 1008.0, 40.0, Some(40.0), 80.0, true, NvLink::None, 4, false, 450.0, false, Some(1999.0), SRC_GEFORCE, &["nvlink", "launch_price_usd"]),
    card("rtx_4080", "RTX 4080", 16, "GDDR6X", 716.8, 48.7, Some(48.7), 97.5, true, NvLink::None, 4, false, 320.0, false, Some(1199.0), SRC_GEFORCE, &[]),
    card("rtx_4090", "RTX 4090", 24, "GDDR6X", 1008.0, 82.6, Some(82.6), 165.2, true, NvLink::None, 4, false, 450.0, false, Some(1599.0), SRC_GEFORCE, &[]),
    card("rtx_5090", "RTX 5090", 32, "GDDR7", 1792.0, 104.8, Some(104.8), 209.5, true, NvLink::None, 5, false, 575.0, false, Some(1999.0), SRC_GEFORCE, &["tf32_flops", "fp16_tensor_flops", "pcie_p2p"]),
    card("rtx_a4000", "RTX A4000", 16, "GDDR6", 448.0, 19.2, Some(38.4), 76.7, true, NvLink::None, 4, true, 140.0, true, None, SRC_WORKSTATION, &["launch_price_usd"]),
    card("rtx_a4500", "RTX A4500", 20, "GDDR6", 640.0, 23.7, Some(47.3), 94.6, true, GA102_BRIDGE, 4, true, 200.0, true, None, SRC_WORKSTATION, &["fp16_tensor_flops", "nvlink", "launch_price_usd"]),
    card("rtx_a5000", "RTX A5000", 24, "GDDR6", 768.0, 27.8, Some(55.6), 111.1, true, GA102_BRIDGE, 4, true, 230.0, true, Some(2300.0), SRC_WORKSTATION, &["fp16_tensor_flops", "nvlink", "launch_price_usd"]),
    card("rtx_a5500", "RTX A5500", 24, "GDDR6", 768.0, 34.1, Some(68.2), 136.4, true, GA102_BRIDGE, 4, true, 230.0, true, None, SRC_WORKSTATION, &["fp16_tensor_flops", "nvlink", "launch_price_usd"]),
    card("rtx_a6000", "RTX A6000", 48, "GDDR6", 768.0, 38.7, Some(77.4), 154.8, true, GA102_BRIDGE, 4, true, 300.0, true, Some(4649.0), SRC_WORKSTATION, &[]),
    card("rtx_6000_ada", "RTX 6000 Ada", 48, "GDDR6", 960.0, 91.1, Some(182.1), 364.2, true, NvLink::None, 4, true, 300.0, true, None, SRC_WORKSTATION, &["fp16_tensor_flops", "launch_price_usd"]),
    card("l40s", "L40S", 48, "GDDR6", 864.0, 91.6, Some(183.0), 362.0, true, NvLink::None, 4, true, 350.0, true, None, SRC_DATACENTER, &[]),
    card("l4", "L4", 24, "GDDR6", 300.0, 30.3, Some(60.0), 121.0, true, NvLink::None, 4, true, 72.0, true, None, SRC_DATACENTER, &["ecc"]),
    card("a10", "A10", 24, "GDDR6", 600.0, 31.2, Some(62.5), 125.0, true, NvLink::None, 4, true, 150.0, true, None, SRC_DATACENTER, &[]),
    card("t4", "T4", 16, "GDDR6", 320.0, 8.1, None, 65.0, false, NvLink::None, 3, true, 70.0, true, None, SRC_DATACENTER, &[]),
    card("v100_pcie_16", "V100 PCIe 16 GB", 16, "HBM2", 900.0, 14.0, None, 112.0, false, NvLink::None, 3, true, 250.0, true, None, SRC_DATACENTER, &[]),
    card("v100_pcie_32", "V100 PCIe 32 GB", 32, "HBM2", 900.0, 14.0, None, 112.0, false, NvLink::None, 3, true, 250.0, true, None, SRC_DATACENTER, &[]),
    card("v100_sxm2_16", "V100 SXM2 16 GB", 16, "HBM2", 900.0, 15.7, None, 125.0, false, NvLink::Sxm { total_gb_s: 300.0 }, 3, true, 300.0, true, None, SRC_DATACENTER, &[]),
    card("v100_sxm2_32", "V100 SXM2 32 GB", 32, "HBM2", 900.0, 15.7, None, 125.0, false, NvLink::Sxm { total_gb_s: 300.0 }, 3, true, 300.0, true, None, SRC_DATACENTER, &[]),
    card("v100s_pcie", "V100S PCIe 32 GB", 32, "HBM2", 1134.0, 16.4, None, 130.0, false, NvLink::None, 3, true, 250.0, true, None, SRC_DATACENTER, &[]),
    card("a100_40_pcie", "A100 40 GB PCIe", 40, "HBM2", 1555.0, 19.5, Some(156.0), 312.0, true, DATACENTER_BRIDGE, 4, true, 250.0, true, None, SRC_DATACENTER, &["nvlink"]),
    card("a100_80_pcie", "A100 80 GB PCIe", 80, "HBM2e", 1935.0, 19.5, Some(156.0), 312.0, true, DATACENTER_BRIDGE, 4, true, 300.0, true, None, SRC_DATACENTER, &["nvlink"]),
    card("a100_80_sxm", "A100 80 GB SXM", 80, "HBM2e", 2039.0, 19.5, Some(156.0), 312.0, true, NvLink::Sxm { total_gb_s: 600.0 }, 4, true, 400.0, true, None, SRC_DATACENTER, &[]),
    card("h100_pcie", "H100 PCIe", 80, "HBM2e", 2000.0, 51.0, Some(378.0), 756.0, true, DATACENTER_BRIDGE, 5, true, 350.0, true, None, SRC_DATACENTER, &["nvlink"]),
    card("h100_sxm", "H100 SXM", 80, "HBM3", 3350.0, 66.9, Some(494.7), 989.4, true, NvLink::Sxm { total_gb_s: 900.0 }, 5, true, 700.0, true, None, SRC_DATACENTER, &[]),
];

/// Every card: the catalog above and the cards added for a 2026 lab (`cards_2026`).
pub static GPUS: &[GpuSpec] = &ALL_CARDS;

static ALL_CARDS: [GpuSpec; 25 + cards_2026::CARDS_2026.len()] =
    concat(&CARDS_TO_2024, &cards_2026::CARDS_2026);

/// `a` followed by `b`, in a const context (`N` must be their total length).
const fn concat<const A: usize, const B: usize, const N: usize>(
    a: &[GpuSpec; A],
    b: &[GpuSpec; B],
) -> [GpuSpec; N] {
    assert!(A + B == N);
    let mut out = [a[0]; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < A { a[i] } else { b[i - A] };
        i += 1;
    }
    out
}
