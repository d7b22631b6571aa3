//! More than one box: the network between nodes and collectives over several nodes.
//!
//! NCCL runs a large collective over `n` nodes of `g` GPUs as rings through all N = n x g
//! GPUs, one ring per channel, each crossing every node boundary through one of the
//! node's NICs: every rank sends 2(N-1)/N x S for an all-reduce of S bytes ((N-1)/N for a
//! reduce-scatter or an all-gather) over its slowest hop, and a node's rings share its
//! NICs. So
//!
//! t = 2(N-1)/N x S / min(B_i, B_n) + 2(g-1) x hop latency + 2(n-1) x network latency
//!
//! with B_i the slowest intra-node ring hop (`scaling::ring_bus_bytes_per_s`) and B_n
//! what the node's NICs carry together: NICs x line rate x efficiency
//! (`NodeLink::efficiency`, or `perf.scaling.network_efficiency`). nccl-tests' bus bandwidth
//! is then min(B_i, B_n) whatever N is (NCCL tests, PERFORMANCE.md), as published
//! multi-node runs show. The latency counts the intra-node steps at NVLink/PCIe
//! latency and the inter-node ones at the network's (NCCL's trees keep it from growing
//! with every GPU). A hierarchical schedule (intra-node reduce-scatter, inter-node
//! all-reduce, intra-node all-gather, one after the other) was checked against the same
//! published points and overestimated two-node bus bandwidth by 8-37 % (docs/models.md,
//! "Sharding and more than one box").

use crate::assumptions::ScalingAssumptions;
use crate::choices::{NodeLink, Sharding};
use crate::shard::Traffic;

/// A collective operation, by how much of the data each level must move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective {
    AllReduce,
    ReduceScatter,
    AllGather,
}

impl Collective {
    /// Passes over the data per level: 2 for an all-reduce, 1 otherwise.
    fn passes(self) -> f64 {
        match self {
            Collective::AllReduce => 2.0,
            _ => 1.0,
        }
    }
}

/// The network between nodes as NCCL sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Network {
    pub nodes: u32,
    /// Bytes/s all of a node's NICs reach together.
    pub node_bytes_per_s: f64,
    /// Seconds per inter-node step.
    pub latency_s: f64,
}

impl Network {
    pub fn new(link: NodeLink, nics: u32, nodes: u32, a: &ScalingAssumptions) -> Network {
        let efficiency = a.network_efficiency.unwrap_or_else(|| link.efficiency());
        Network {
            nodes: nodes.max(1),
            node_bytes_per_s: f64::from(nics.max(1)) * link.line_bits_per_s() / 8.0 * efficiency,
            latency_s: a.network_latency_s.unwrap_or_else(|| link.latency_s()),
        }
    }
}

/// Seconds of `op` on `bytes` (the full array, as nccl-tests count S) over `gpus` GPUs per
/// node on `net`'s nodes; `intra_bytes_per_s` is the slowest intra-node ring hop.
pub fn collective_s(
    op: Collective,
    bytes: f64,
    gpus: u32,
    intra_bytes_per_s: f64,
    hop_latency_s: f64,
    net: &Network,
) -> f64 {
    let ranks = gpus * net.nodes;
    if ranks < 2 || bytes <= 0.0 {
        return 0.0;
    }
    let intra = if gpus > 1 {
        intra_bytes_per_s
    } else {
        f64::INFINITY
    };
    let inter = if net.nodes > 1 {
        net.node_bytes_per_s
    } else {
        f64::INFINITY
    };
    let n = f64::from(ranks);
    let steps = |k: u32| op.passes() * f64::from(k - 1);
    op.passes() * (n - 1.0) / n * bytes / intra.min(inter)
        + steps(gpus) * hop_latency_s
        + steps(net.nodes) * net.latency_s
}

/// nccl-tests' bus bandwidth of `op` moving `bytes` in `seconds` over `ranks` ranks
/// (PERFORMANCE.md: algbw x 2(n-1)/n for an all-reduce, x (n-1)/n otherwise).
pub fn bus_bandwidth(op: Collective, bytes: f64, seconds: f64, ranks: u32) -> f64 {
    let n = f64::from(ranks.max(1));
    bytes / seconds * op.passes() * (n - 1.0) / n
}

/// How a run's ranks share the work: the sharding, its traffic per step (`shard`), the
/// network between nodes and the PCIe rate an offloaded optimizer crosses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DataParallel {
    pub sharding: Sharding,
    pub offload: bool,
    pub traffic: Traffic,
    pub network: Network,
    /// Host-device copy rate for offload, bytes/s.
    pub pcie_bytes_per_s: f64,
    /// Bytes per parameter copied to and from the host when offloaded (gradient + weight).
    pub offload_bytes_per_param: f64,
}
