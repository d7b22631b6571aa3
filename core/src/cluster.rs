//! More than one box: the network between nodes and hierarchical collectives.
//!
//! A collective over `n` nodes of `g` GPUs runs in two levels (NCCL's tree and
//! hierarchical algorithms keep the network traffic to what the nodes must exchange):
//! an all-reduce is an intra-node reduce-scatter over NVLink/PCIe, an inter-node
//! all-reduce of each GPU's 1/g share over the NICs (the node's g shares together cross
//! its NICs once), and an intra-node all-gather. With S bytes, the intra-node bus
//! bandwidth B_i and the node's network bandwidth B_n:
//!
//! t = 2(g-1)/g x S / B_i + 2(n-1)/n x S / B_n + 2(g-1) x hop latency + 2(n-1) x net latency
//!
//! a reduce-scatter or all-gather is half of each term ((g-1)/g, (n-1)/n). On one node
//! this is the ring of `scaling` (NCCL tests, PERFORMANCE.md); the phases run one after
//! the other. B_n = NICs x line rate x efficiency (`perf.scaling.rdma_efficiency` or
//! `socket_efficiency`).

use crate::assumptions::ScalingAssumptions;
use crate::choices::NodeLink;

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
        let (efficiency, latency_s) = if link.rdma() {
            (a.rdma_efficiency, a.rdma_latency_s)
        } else {
            (a.socket_efficiency, a.socket_latency_s)
        };
        Network {
            nodes: nodes.max(1),
            node_bytes_per_s: f64::from(nics.max(1)) * link.line_bits_per_s() / 8.0 * efficiency,
            latency_s,
        }
    }
}

/// One level of a collective: `k` participants at `bytes_per_s`, `latency_s` per step.
fn level_s(op: Collective, bytes: f64, k: u32, bytes_per_s: f64, latency_s: f64) -> f64 {
    if k < 2 || bytes <= 0.0 {
        return 0.0;
    }
    let k = f64::from(k);
    let steps = op.passes() * (k - 1.0);
    steps / k * bytes / bytes_per_s + steps * latency_s
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
    level_s(op, bytes, gpus, intra_bytes_per_s, hop_latency_s)
        + level_s(op, bytes, net.nodes, net.node_bytes_per_s, net.latency_s)
}

/// nccl-tests' bus bandwidth of `op` moving `bytes` in `seconds` over `ranks` ranks
/// (PERFORMANCE.md: algbw x 2(n-1)/n for an all-reduce, x (n-1)/n otherwise).
pub fn bus_bandwidth(op: Collective, bytes: f64, seconds: f64, ranks: u32) -> f64 {
    let n = f64::from(ranks.max(1));
    bytes / seconds * op.passes() * (n - 1.0) / n
}
