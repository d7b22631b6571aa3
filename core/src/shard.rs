//! Sharded data parallelism (DeepSpeed ZeRO 1/2/3, PyTorch FSDP): the model states per GPU
//! and the collective traffic of one step.
//!
//! With Ψ parameters, K optimizer bytes per parameter and Nd data-parallel ranks (ZeRO
//! paper, Rajbhandari et al. 2020, Figure 1): DDP keeps (2 + 2 + K)Ψ per GPU, ZeRO-1
//! 2Ψ + 2Ψ + KΨ/Nd, ZeRO-2 2Ψ + (2 + K)Ψ/Nd, ZeRO-3 (2 + 2 + K)Ψ/Nd. The bytes per
//! parameter follow the scenario's precision:
//! - unsharded, the planner's usual layout: weights and gradients in the parameter dtype,
//!   the optimizer's states in it too (autocast keeps fp32 weights as the master);
//! - sharded under autocast, the layout ZeRO and FSDP's MixedPrecision use: 16-bit
//!   working weights and gradients, the fp32 master in the optimizer's part (K = 4 + 4 x
//!   states: 12 for Adam, the paper's K); the weight copies autocast would keep are that
//!   working copy, so they leave the activations;
//! - sharded otherwise (fp32, tf32, a model cast to bf16): the unsharded layout, split.
//!
//! Beyond the states: ZeRO's reduce and all-gather buckets (`zero_bucket_elements`),
//! ZeRO-3's gathered layer and its prefetched successor, and FSDP's unit working set: the
//! largest wrapped unit's full 16-bit parameters and gradients, twice (the unit in use and
//! the one prefetched). A unit is a run of layers that share a name prefix
//! (`blocks.3.attn`, `blocks.3.fc1` -> `blocks.3`: FSDP's transformer-block auto-wrap).
//!
//! `offload` moves the optimizer's part (states and fp32 master) to host memory
//! (ZeRO-Offload): the GPU keeps none of it, the host runs Adam.

use crate::analysis::LayerReport;
use crate::choices::{ParallelMode, Sharding};
use crate::scenario::Scenario;

/// Bytes per parameter of each model state as this scenario stores them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    pub weight: f64,
    pub grad: f64,
    /// One optimizer state (momentum, variance).
    pub state: f64,
    /// A separate fp32 master copy (0 where the weights are the master).
    pub master: f64,
    /// States plus master: the paper's K.
    pub optimizer: f64,
}

impl Layout {
    pub fn of(s: &Scenario) -> Layout {
        let states = s.optimizer.states_per_param() as f64;
        let (weight, state, master) = if s.sharding != Sharding::None && s.precision.is_autocast() {
            (2.0, 4.0, 4.0)
        } else {
            let pb = s.precision.param_bytes() as f64;
            (pb, pb, 0.0)
        };
        Layout {
            weight,
            grad: weight,
            state,
            master,
            optimizer: states * state + master,
        }
    }
}

/// Data-parallel ranks of one run: every card of every node with DDP, one otherwise; a
/// tensor x pipeline group of cards (`parallel`) holds one replica, so it is one rank.
pub fn ranks(s: &Scenario) -> u32 {
    match s.workload.mode {
        ParallelMode::Ddp => {
            let replica = s.tensor_parallel.max(1) * s.pipeline_parallel.max(1);
            (s.cards.max(1) / replica).max(1) * s.nodes.max(1)
        }
        ParallelMode::ParallelExperiments => 1,
    }
}

/// The model states on one GPU, bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct States {
    pub weights: f64,
    pub gradients: f64,
    pub optimizer: f64,
    /// The optimizer's part held in host memory instead (offload), per GPU.
    pub host: f64,
    /// ZeRO's buckets, ZeRO-3's gathered layers, FSDP's unit working set.
    pub buffers: f64,
    /// Adam's foreach temporary on the GPU: one state-sized list of this rank's share.
    pub step_temporary: f64,
    /// Autocast's 16-bit weight copies that a sharded layout does not make (to take
    /// out of the activations).
    pub no_autocast_copies: f64,
}

/// Parameters of the largest run of layers sharing a name prefix.
pub fn largest_unit(layers: &[LayerReport]) -> f64 {
    let prefix = |name: &str| name.rsplit_once('.').map_or(name, |(p, _)| p).to_string();
    let (mut best, mut current, mut key) = (0u64, 0u64, None::<String>);
    for l in layers {
        let k = prefix(&l.name);
        if key.as_ref() != Some(&k) {
            current = 0;
            key = Some(k);
        }
        current += l.params;
        best = best.max(current);
    }
    best as f64
}

/// The model states of `params` parameters, `trainable` of them trained, on one GPU of
/// `s` (the largest unit from `layers`).
pub fn states(s: &Scenario, params: f64, trainable: f64, layers: &[LayerReport]) -> States {
    let l = Layout::of(s);
    let nd = f64::from(ranks(s));
    let (opt_split, grad_split, param_split) = s.sharding.splits();
    let part = |split: bool| if split { 1.0 / nd } else { 1.0 };
    let optimizer = trainable * l.optimizer * part(opt_split);
    let bucket = trainable.min(s.perf.scaling.zero_bucket_elements);
    let buffers = match s.sharding {
        Sharding::None => 0.0,
        Sharding::Zero1 | Sharding::Zero2 => bucket * (l.grad + l.weight),
        Sharding::Zero3 => 2.0 * largest_unit(layers) * l.weight + bucket * l.grad,
        Sharding::Fsdp => 2.0 * largest_unit(layers) * (l.weight + l.grad),
    };
    let copies = if s.sharding != Sharding::None && s.precision.is_autocast() {
        layers
            .iter()
            .filter(|l| l.tensor_core)
            .map(|l| l.weight_bytes)
            .sum()
    } else {
        0.0
    };
    States {
        weights: params * l.weight * part(param_split),
        gradients: trainable * l.grad * part(grad_split),
        optimizer: if s.offload { 0.0 } else { optimizer },
        host: if s.offload { optimizer } else { 0.0 },
        buffers,
        step_temporary: if s.offload || s.optimizer.states_per_param() < 2 {
            0.0
        } else {
            trainable * l.state * part(opt_split)
        },
        no_autocast_copies: copies,
    }
}

/// Bytes one rank sends per step for the model states, as multiples of the collective
/// sizes (ZeRO paper, section 7): DDP all-reduces the gradients (2Ψ); ZeRO-1/2
/// reduce-scatter them and all-gather the updated parameters (2Ψ); ZeRO-3 and FSDP
/// all-gather the parameters in forward and again in backward and reduce-scatter the
/// gradients (3Ψ).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Traffic {
    /// Gradient bytes reduced (all-reduce for DDP, reduce-scatter otherwise).
    pub grad_bytes: f64,
    /// Parameter bytes all-gathered after the optimizer step (ZeRO-1/2).
    pub gather_after_step: f64,
    /// Parameter bytes all-gathered in forward and again in backward (ZeRO-3, FSDP).
    pub gather_per_pass: f64,
}

pub fn traffic(s: &Scenario, params: f64, trainable: f64) -> Traffic {
    let l = Layout::of(s);
    let (_, _, param_split) = s.sharding.splits();
    let sharded = s.sharding != Sharding::None;
    Traffic {
        grad_bytes: trainable * l.grad,
        // Only what the optimizer updated comes back.
        gather_after_step: if sharded && !param_split {
            trainable * l.weight
        } else {
            0.0
        },
        gather_per_pass: if param_split { params * l.weight } else { 0.0 },
    }
}

/// Gradient bytes per parameter as the collectives move them.
pub fn grad_bytes_per_param(s: &Scenario) -> f64 {
    Layout::of(s).grad
}
