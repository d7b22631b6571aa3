//! What one card does per optimizer step, whatever the card count: the input of the
//! scaling model (`scaling.rs`) and of its collectives (`collectives.rs`).

/// One layer's share of the last micro-step's backward, in forward order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BackwardSlice {
    /// Seconds this layer's backward (and its recomputation) takes.
    pub seconds: f64,
    /// Gradient bytes it produces (params x gradient bytes).
    pub grad_bytes: f64,
}

/// What one card does per optimizer step, independent of how many cards there are.
#[derive(Clone, Debug, PartialEq)]
pub struct StepCompute {
    pub micro_step_s: f64,
    pub optimizer_s: f64,
    pub accum_steps: u32,
    pub batch_per_gpu: u32,
    pub backward: Vec<BackwardSlice>,
    /// What the host, the input pipeline and the per-step sync add to the device's time,
    /// with 1, 2, ... processes sharing the host (index = processes - 1; empty = none).
    pub host_extra_s: Vec<f64>,
    /// The host's dispatch of one micro-step's backward, by processes as `host_extra_s`.
    pub host_backward_s: Vec<f64>,
    /// The main process's own seconds per optimizer step (dispatch, the optimizer loop,
    /// the input it loads or receives), by processes as `host_extra_s`.
    pub host_serial_s: Vec<f64>,
    /// Trainable parameters: what an offloaded optimizer copies and updates.
    pub params: f64,
    /// Seconds of tensor-parallel all-reduces per optimizer step, within the micro-steps'
    /// time (0 without a tensor split).
    pub tensor_allreduce_s: f64,
}

/// The entry of a list by processes on the host (index = processes - 1), the last one
/// past its end, 0 for an empty list.
pub(super) fn by_processes(list: &[f64], processes: u32) -> f64 {
    list.get(processes.max(1) as usize - 1)
        .or(list.last())
        .copied()
        .unwrap_or(0.0)
}

impl StepCompute {
    /// Seconds of one optimizer step on one card alone, without communication.
    pub fn compute_s(&self) -> f64 {
        self.compute_s_on(1)
    }

    /// Seconds of one card's optimizer step without communication when `processes`
    /// processes share the host (DDP ranks or parallel runs).
    pub fn compute_s_on(&self, processes: u32) -> f64 {
        let extra = by_processes(&self.host_extra_s, processes);
        f64::from(self.accum_steps) * self.micro_step_s + self.optimizer_s + extra
    }

    /// How much longer than the device's own seconds backward takes in wall time when
    /// `processes` share the host: a kernel runs once the host has queued it, so where the
    /// host's dispatch of backward takes longer, the gradient buckets come ready at its
    /// pace (1 where the device is slower). Faster kernels then hide no less of the
    /// all-reduce; without this they would look slower on a host-bound step.
    pub fn host_paced(&self, processes: u32) -> f64 {
        let device: f64 = self.backward.iter().map(|s| s.seconds).sum();
        let host = by_processes(&self.host_backward_s, processes);
        if device > 0.0 {
            (host / device).max(1.0)
        } else {
            1.0
        }
    }

    /// `compute_s_on` where data-parallel ranks wait at the end of backward for its
    /// gradients' collectives (DDP's reducer, ZeRO, FSDP): the last micro-step's backward
    /// can no longer run on the device behind the host's next step, so a host-bound step
    /// takes at least the host's own work with that backward's dispatch replaced by its
    /// wall time. Without this a faster device would only expose more of the all-reduce.
    pub fn synced_s_on(&self, processes: u32) -> f64 {
        let device: f64 = self.backward.iter().map(|s| s.seconds).sum();
        let host = by_processes(&self.host_backward_s, processes);
        let serial = by_processes(&self.host_serial_s, processes);
        self.compute_s_on(processes)
            .max(serial + (device - host).max(0.0))
    }

    pub fn samples_per_step(&self) -> f64 {
        f64::from(self.batch_per_gpu) * f64::from(self.accum_steps)
    }

    pub fn grad_bytes(&self) -> f64 {
        self.backward.iter().map(|s| s.grad_bytes).sum()
    }
}
