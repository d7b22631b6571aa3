//! The host side of a training step: what the CPU spends per step in PyTorch's eager
//! mode while the GPU runs asynchronously.
//!
//! Per step: every layer's forward is a Python module call plus one dispatch and launch
//! per kernel (`op_forward_s`; a view still costs one dispatch); every backward kernel
//! is one autograd node plus its launch (`op_backward_s`); the loss adds its own ops;
//! the optimizer costs per parameter tensor (a `for` loop of single-tensor ops, or
//! `_foreach_*` ops over lists); each step also zeroes the gradients, syncs on
//! `loss.item()` and runs the Python loop (`step_fixed_s`). Autocast adds a cast of
//! every weight a tensor-core layer reads and GradScaler its unscale/check/update ops.
//!
//! All figures are for one reference desktop core (the `workstation` class) and scale
//! with the CPU class's `single_thread` factor. Sources: PyTorch eager overhead is a few
//! microseconds per op in the dispatcher plus Python and `cudaLaunchKernel`
//! (horace.io/brrr_intro.html "overhead"; dev-discuss.pytorch.org/t/110: 64 small
//! `nn.Linear` layers run ~2x slower eager than raw cuBLAS); optimizer loops: PyTorch
//! 2.0 made `foreach=True` the CUDA default because the per-tensor loop was
//! launch-bound (torch.optim docs, "Algorithms": foreach and fused implementations).
//! The per-op figures are scaled to host times measured on an H200 machine (PyTorch
//! 2.11, a server-class core; `HostAssumptions`); other CPUs and releases differ. Editable.

use serde::{Deserialize, Serialize};

pub use crate::assumptions::HostAssumptions;
pub use crate::choices::CpuClass;

/// What a CPU class means. Laptop chips sustain ~25 % lower clocks than desktop ones
/// under load; server cores run at 2-3.5 GHz against 5 GHz desktop boost; all-core clocks
/// sit ~15 % under single-core boost on desktop parts, ~5 % on server parts (vendor spec
/// sheets: max boost vs all-core boost). Rough.
pub fn cpu_profile(class: CpuClass) -> CpuProfile {
    match class {
        CpuClass::Laptop => CpuProfile {
            single_thread: 1.3,
            cores: 8,
            all_core_slowdown: 0.25,
        },
        CpuClass::Workstation => CpuProfile {
            single_thread: 1.0,
            cores: 16,
            all_core_slowdown: 0.15,
        },
        CpuClass::Server => CpuProfile {
            single_thread: 1.25,
            cores: 64,
            all_core_slowdown: 0.05,
        },
    }
}

/// What a CPU class means for the step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CpuProfile {
    /// Time factor on host work relative to the reference core (higher = slower).
    pub single_thread: f64,
    pub cores: u32,
    /// Extra time factor when every core is busy (all-core vs single-core clocks).
    pub all_core_slowdown: f64,
}

impl CpuProfile {
    /// The profile with `busy_threads` threads running: clocks drop towards the all-core
    /// figure as the cores fill.
    pub fn loaded(self, busy_threads: f64) -> CpuProfile {
        let share = (busy_threads / f64::from(self.cores.max(1))).min(1.0);
        CpuProfile {
            single_thread: self.single_thread * (1.0 + self.all_core_slowdown * share),
            ..self
        }
    }
}

/// First-CUDA-call startup without lazy module loading (CUDA < 11.7: every kernel of
/// the PyTorch and cuDNN/cuBLAS binaries is loaded up front), seconds. Rough: seconds on
/// desktop GPUs (pytorch PR 86509 and issue 107667 discuss the load).
pub const EAGER_LOADING_STARTUP_S: f64 = 2.5;

/// Single-tensor ops per parameter tensor in one optimizer step (`for` loop), counted
/// from torch/optim/sgd.py and adam.py `_single_tensor_*` (Adam: step count, two
/// moment updates, bias corrections, sqrt, div, add, addcdiv, ...).
pub fn optimizer_ops_per_tensor(states: u64, decoupled_decay: bool) -> f64 {
    match states {
        0 => 1.0,
        1 => 3.0,
        _ => 10.0 + if decoupled_decay { 1.0 } else { 0.0 },
    }
}

/// What the host must issue for one optimizer step on one card.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostWork {
    /// Forward host ops over all layers and the loss (see the module doc).
    pub forward_ops: f64,
    pub backward_ops: f64,
    pub param_tensors: f64,
    /// Single-tensor ops per parameter tensor of the optimizer (`optimizer_ops_per_tensor`)
    /// and `_foreach_*` ops of one step.
    pub optimizer_ops_per_tensor: f64,
    pub foreach_ops: f64,
    /// Extra ops per step that autocast / GradScaler add (weight casts, unscale, check).
    pub amp_ops: f64,
    /// cuDNN RNN weight-parameter queries forward and backward
    /// (`LayerReport::weight_queries`).
    pub weight_queries: [f64; 2],
    pub accum_steps: u32,
}

/// Host seconds of one optimizer step (dispatch only; input pipeline apart). `fixed_s`
/// holds zero_grad and the per-step Python work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostTime {
    pub forward_s: f64,
    pub backward_s: f64,
    pub optimizer_s: f64,
    pub fixed_s: f64,
    pub total_s: f64,
}

pub fn host_time(w: &HostWork, a: &HostAssumptions, cpu: CpuProfile) -> HostTime {
    let k = cpu.single_thread;
    let accum = f64::from(w.accum_steps.max(1));
    let [queries_fwd, queries_bwd] = w.weight_queries.map(|q| q * a.rnn_weight_query_s);
    let forward_s = k * accum * ((w.forward_ops + w.amp_ops) * a.op_forward_s + queries_fwd);
    let backward_s = k * accum * (w.backward_ops * a.op_backward_s + queries_bwd);
    let optimizer_s = k
        * w.param_tensors
        * if a.foreach {
            w.foreach_ops * a.foreach_tensor_s
        } else {
            w.optimizer_ops_per_tensor * a.optimizer_op_s
        }
        + k * w.foreach_ops * a.op_forward_s;
    let zeroing = if a.zero_grad_to_none {
        0.0
    } else {
        w.param_tensors * a.optimizer_op_s
    };
    let fixed_s = k * (a.step_fixed_s + zeroing);
    HostTime {
        forward_s,
        backward_s,
        optimizer_s,
        fixed_s,
        total_s: forward_s + backward_s + optimizer_s + fixed_s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work() -> HostWork {
        HostWork {
            forward_ops: 100.0,
            backward_ops: 150.0,
            param_tensors: 40.0,
            optimizer_ops_per_tensor: 10.0,
            foreach_ops: 8.0,
            amp_ops: 0.0,
            weight_queries: [0.0; 2],
            accum_steps: 1,
        }
    }

    #[test]
    fn slower_cpu_classes_take_longer() {
        let a = HostAssumptions::default();
        let t = |c: CpuClass| host_time(&work(), &a, cpu_profile(c)).total_s;
        assert!(t(CpuClass::Laptop) > t(CpuClass::Workstation));
        assert!(t(CpuClass::Server) > t(CpuClass::Workstation));
    }

    #[test]
    fn busier_hosts_run_each_thread_slower() {
        let cpu = cpu_profile(CpuClass::Workstation);
        assert!(cpu.loaded(16.0).single_thread > cpu.loaded(2.0).single_thread);
        assert_eq!(cpu.loaded(64.0), cpu.loaded(16.0));
        assert!(cpu.loaded(1.0).single_thread > cpu.single_thread);
    }

    #[test]
    fn the_for_loop_optimizer_costs_more_than_foreach() {
        let mut a = HostAssumptions::default();
        let cpu = cpu_profile(CpuClass::Workstation);
        let foreach = host_time(&work(), &a, cpu).optimizer_s;
        a.foreach = false;
        let looped = host_time(&work(), &a, cpu).optimizer_s;
        assert!(looped > 5.0 * foreach, "{looped} vs {foreach}");
    }

    #[test]
    fn accumulation_repeats_forward_and_backward_not_the_optimizer() {
        let a = HostAssumptions::default();
        let cpu = cpu_profile(CpuClass::Workstation);
        let one = host_time(&work(), &a, cpu);
        let four = host_time(
            &HostWork {
                accum_steps: 4,
                ..work()
            },
            &a,
            cpu,
        );
        assert!((four.forward_s / one.forward_s - 4.0).abs() < 1e-12);
        assert!((four.backward_s / one.backward_s - 4.0).abs() < 1e-12);
        assert_eq!(four.optimizer_s, one.optimizer_s);
    }
}
