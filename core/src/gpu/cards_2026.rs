//! Cards a small HSI lab meets when it shops in late 2026, beyond the catalog in `gpu`:
//! Hopper and Blackwell datacenter parts (H200, B200), the export variants sold in China
//! (A800, H800, H20, RTX 4090 D), current workstation and GeForce cards, the older cards
//! many labs still own (RTX 2080 Ti, TITAN RTX, A40, L40) and a Jetson module for the
//! deployment what-if. Same conventions as `gpu` (GiB-based memory, dense tensor rates,
//! FP16 tensor = FP16/BF16 inputs with FP32 accumulate, NVLink both directions added).
//!
//! Datasheets print sparse (2:4) tensor rates for Ampere and later; they are halved here.
//! Where a rate is derived rather than printed (scaled from a sibling by SM count and
//! clock, or from GeForce "AI TOPS" at FP4 sparse: / 2 sparse, / 2 per halving of
//! precision down to FP16, / 2 for FP32 accumulate on GeForce) the field is listed as
//! unverified.

use super::{card, GpuSpec, NvLink, GA102_BRIDGE, SRC_GEFORCE};

const SRC_H200: &str =
    "NVIDIA H200 Tensor Core GPU datasheet (SXM and NVL columns; sparse rates halved)";
const SRC_B200: &str =
    "NVIDIA DGX B200 / HGX B200 datasheets (8-GPU totals divided by 8; sparse rates halved)";
const SRC_RTX_PRO: &str = "NVIDIA RTX PRO 6000 Blackwell Workstation Edition datasheet (125 TFLOPS FP32, 96 GB GDDR7 ECC, 1792 GB/s, 600 W); tensor rates scaled from the RTX Blackwell whitepaper's RTX 5090 by SMs x boost clock";
const SRC_GEFORCE_50: &str = "NVIDIA GeForce RTX 50 series product pages (memory, bandwidth, FP32 via TechPowerUp GPU database, AI TOPS at FP4 sparse)";
const SRC_L40_A40: &str = "NVIDIA L40 and A40 datasheets (sparse rates halved)";
const SRC_CHINA: &str =
    "NVIDIA A800 / H800 product pages (as A100 / H100 with NVLink cut to 400 GB/s)";
const SRC_H20: &str = "NVIDIA HGX H20 product brief as reported by SemiAnalysis and Tom's Hardware, Nov 2023 (no public NVIDIA datasheet)";
const SRC_TURING: &str = "NVIDIA Turing architecture whitepaper, appendix tables (reference RTX 2080 Ti, TITAN RTX); NVLink 2 links x 25 GB/s each way";
const SRC_JETSON: &str = "NVIDIA Jetson AGX Orin series datasheet (64 GB module: 2048 CUDA cores at 1.3 GHz, 204.8 GB/s LPDDR5 shared with the CPU, 15-60 W)";

/// NVLink on the A800 / H800: 400 GB/s both directions, bridge pairs (PCIe) or all
/// modules (SXM).
const CHINA_BRIDGE: NvLink = NvLink::Bridge {
    total_gb_s: 400.0,
    cards_per_link: 2,
};
/// Turing NVLink bridge (RTX 2080 Ti, TITAN RTX): two cards, 100 GB/s both directions.
const TURING_BRIDGE: NvLink = NvLink::Bridge {
    total_gb_s: 100.0,
    cards_per_link: 2,
};
/// H200 NVL bridges join two or four cards; modelled as pairs.
const H200_NVL_BRIDGE: NvLink = NvLink::Bridge {
    total_gb_s: 900.0,
    cards_per_link: 2,
};

/// Derived tensor rates (see the module doc).
const DERIVED_TENSOR: &[&str] = &["tf32_flops", "fp16_tensor_flops"];

#[rustfmt::skip]
pub(super) const CARDS_2026: [GpuSpec; 16] = [
    card("h200_sxm", "H200 SXM", 141, "HBM3e", 4800.0, 67.0, Some(494.5), 989.5, true, NvLink::Sxm { total_gb_s: 900.0 }, 5, true, 700.0, true, None, SRC_H200, &[]),
    card("h200_nvl", "H200 NVL (PCIe)", 141, "HBM3e", 4800.0, 60.0, Some(417.5), 835.5, true, H200_NVL_BRIDGE, 5, true, 600.0, true, None, SRC_H200, &[]),
    card("b200", "B200 (HGX)", 180, "HBM3e", 8000.0, 75.0, Some(1125.0), 2250.0, true, NvLink::Sxm { total_gb_s: 1800.0 }, 5, true, 1000.0, true, None, SRC_B200, &[]),
    card("rtx_pro_6000_bw", "RTX PRO 6000 Blackwell", 96, "GDDR7", 1792.0, 125.0, Some(251.9), 503.8, true, NvLink::None, 5, true, 600.0, true, Some(8565.0), SRC_RTX_PRO, &["tf32_flops", "fp16_tensor_flops", "pcie_p2p", "launch_price_usd"]),
    card("rtx_5080", "RTX 5080", 16, "GDDR7", 960.0, 56.3, Some(56.3), 112.6, true, NvLink::None, 5, false, 360.0, false, Some(999.0), SRC_GEFORCE_50, DERIVED_TENSOR),
    card("rtx_5070_ti", "RTX 5070 Ti", 16, "GDDR7", 896.0, 43.9, Some(43.9), 87.9, true, NvLink::None, 5, false, 300.0, false, Some(749.0), SRC_GEFORCE_50, DERIVED_TENSOR),
    card("rtx_4090_d", "RTX 4090 D", 24, "GDDR6X", 1008.0, 73.5, Some(73.5), 147.0, true, NvLink::None, 4, false, 425.0, false, None, SRC_GEFORCE, DERIVED_TENSOR),
    card("l40", "L40", 48, "GDDR6", 864.0, 90.5, Some(90.5), 181.0, true, NvLink::None, 4, true, 300.0, true, None, SRC_L40_A40, &[]),
    card("a40", "A40", 48, "GDDR6", 696.0, 37.4, Some(74.8), 149.7, true, GA102_BRIDGE, 4, true, 300.0, true, None, SRC_L40_A40, &[]),
    card("a800_80_pcie", "A800 80 GB PCIe", 80, "HBM2e", 1935.0, 19.5, Some(156.0), 312.0, true, CHINA_BRIDGE, 4, true, 300.0, true, None, SRC_CHINA, &["nvlink"]),
    card("a800_80_sxm", "A800 80 GB SXM", 80, "HBM2e", 2039.0, 19.5, Some(156.0), 312.0, true, NvLink::Sxm { total_gb_s: 400.0 }, 4, true, 400.0, true, None, SRC_CHINA, &[]),
    card("h800_sxm", "H800 SXM", 80, "HBM3", 3350.0, 66.9, Some(494.7), 989.4, true, NvLink::Sxm { total_gb_s: 400.0 }, 5, true, 700.0, true, None, SRC_CHINA, &[]),
    card("h20", "H20", 96, "HBM3", 4000.0, 44.0, Some(74.0), 148.0, true, NvLink::Sxm { total_gb_s: 900.0 }, 5, true, 400.0, true, None, SRC_H20, &["memory_bytes", "bandwidth_bytes_per_s", "fp32_flops", "tf32_flops", "fp16_tensor_flops", "nvlink", "tdp_watts"]),
    card("rtx_2080_ti", "RTX 2080 Ti", 11, "GDDR6", 616.0, 13.4, None, 53.8, false, TURING_BRIDGE, 3, false, 250.0, false, Some(999.0), SRC_TURING, &[]),
    card("titan_rtx", "TITAN RTX", 24, "GDDR6", 672.0, 16.3, None, 130.5, false, TURING_BRIDGE, 3, false, 280.0, false, Some(2499.0), SRC_TURING, &["pcie_p2p"]),
    card("jetson_agx_orin_64", "Jetson AGX Orin 64 GB", 64, "LPDDR5", 204.8, 5.3, Some(21.3), 42.5, true, NvLink::None, 4, false, 60.0, false, None, SRC_JETSON, &["tf32_flops", "fp16_tensor_flops"]),
];
