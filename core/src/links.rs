//! The links between the cards of one box: PCIe rates, the topologies a card can be
//! built into, the slowest hop of a ring over some of its cards and the ring all-reduce
//! (NCCL tests, PERFORMANCE.md). Data parallelism (`scaling`), tensor and pipeline
//! parallelism (`parallel`) and the levers run their collectives over these.

use crate::assumptions::ScalingAssumptions;
use crate::choices::Interconnect;
use crate::gpu::{GpuSpec, NvLink};

/// One-way PCIe x16 rate in bytes/s for a generation (gen 3 = 8 GT/s per lane, doubling
/// each generation, 128b/130b coding).
pub fn pcie_x16_bytes_per_s(gen: u8) -> f64 {
    let gt_per_lane = 8e9 * 2f64.powi(i32::from(gen.max(3)) - 3);
    gt_per_lane * 16.0 * 128.0 / 130.0 / 8.0
}

/// Topologies a card can be built into. SXM modules always sit on NVLink; PCIe cards
/// always have PCIe and, with a bridge connector, bridged pairs.
pub fn valid_interconnects(gpu: &GpuSpec) -> Vec<Interconnect> {
    match gpu.nvlink {
        NvLink::Sxm { .. } => vec![Interconnect::Nvswitch],
        NvLink::Bridge { .. } => vec![Interconnect::Pcie, Interconnect::NvlinkBridge],
        NvLink::None => vec![Interconnect::Pcie],
    }
}

/// Achievable one-way bandwidth of the slowest hop of a ring over `cards` consecutive
/// cards (a group whose members lie further apart spans as many), bytes/s; None where the
/// topology does not exist for this card.
pub fn ring_bus_bytes_per_s(
    gpu: &GpuSpec,
    interconnect: Interconnect,
    cards: u32,
    a: &ScalingAssumptions,
) -> Option<f64> {
    let pcie = || {
        let p2p = if gpu.pcie_p2p {
            1.0
        } else {
            a.host_staged_factor
        };
        pcie_x16_bytes_per_s(gpu.pcie_gen) * a.pcie_efficiency * p2p
    };
    let nvlink = gpu
        .nvlink
        .one_way_bytes_per_s()
        .map(|b| b * a.nvlink_efficiency);
    match (interconnect, gpu.nvlink) {
        (Interconnect::Pcie, NvLink::Sxm { .. }) => None,
        (Interconnect::Pcie, _) => Some(pcie()),
        (Interconnect::NvlinkBridge, NvLink::Bridge { cards_per_link, .. }) => {
            let bridge = nvlink?;
            // Beyond one bridged group the ring crosses PCIe between groups.
            Some(if cards <= cards_per_link {
                bridge
            } else {
                bridge.min(pcie())
            })
        }
        (Interconnect::Nvswitch, NvLink::Sxm { .. }) => nvlink,
        _ => None,
    }
}

/// Ring all-reduce time of `bytes` on `cards` cards.
pub fn ring_allreduce_s(bytes: f64, cards: u32, bus_bytes_per_s: f64, hop_latency_s: f64) -> f64 {
    if cards < 2 || bytes <= 0.0 {
        return 0.0;
    }
    let n = f64::from(cards);
    let steps = 2.0 * (n - 1.0);
    steps / n * bytes / bus_bytes_per_s + steps * hop_latency_s
}
