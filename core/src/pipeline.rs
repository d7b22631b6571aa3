//! The input pipeline of a patch-based HSI training run: labelled pixels of an H x W x B
//! cube become s x s x B patches, batched by a `torch.utils.data.DataLoader` and copied to
//! the GPU.
//!
//! Per sample a Dataset's `__getitem__` costs a fixed part (Python, indexing, the tensor
//! wrapper) plus a part per byte of the patch (the slice copy, the transpose to channels
//! first, the collate's stack); augmentation (random flips/rotations) adds its random draws
//! and views per sample, and next to nothing per byte (the flipped view is copied by the
//! cut's own copy). Patches can be cut once before training into one tensor (SSFTT and
//! HybridSN reference scripts: a per-sample index is then all `__getitem__` does) or cut
//! per sample from the cube (DeepHyperX's `HyperX` dataset). With `num_workers = 0` the
//! main process does it all between steps; with workers the per-sample work runs on
//! `min(num_workers, cores left)` other cores, which collate each batch into shared memory,
//! and the main process only receives it (unpickling its handles, touching and unmapping
//! its pages). The batch crosses PCIe at the pinned or pageable host-to-device rate. A cube
//! resident on the GPU skips all of that: the step indexes patches on the device (a few
//! gather ops) at the cost of H x W x B x 4 bytes of device memory.
//!
//! The per-sample and per-byte constants are what `tools/bench_pipeline.py` measures on a
//! CPU (its JSON result carries them under the same names). The defaults are the lines
//! through its three runs on the development machine (2 shared cores of a cloud VM, numpy
//! 2.4, torch 2.14, 2026-12-07; `core/tests/fixtures/pipeline_bench.json` and
//! `pipeline_bench_repeats.json`): a pre-cut patch 4.4 us and a cut one 4.9 us a sample,
//! 0.28 ns a patch byte for the collate's copy and 0.12 ns more where the patch is cut
//! (the window's strided copy); flips and rotations 10.5 us a sample and 0.03 ns a byte. A
//! worker's hand-over, timed on each side as its thread's CPU time: 1.05 ms a batch and
//! 0.26 ns a byte in the main process, 0.61 ns a byte more in the worker than collating in
//! the main process (fresh shared pages each batch). A desktop core is likely faster.
//! Collating into shared memory is why one worker is slower than none for a pre-cut
//! tensor, and why more workers help large batches: that cost divides over them, the main
//! process's does not.

use serde::{Deserialize, Serialize};

pub use crate::assumptions::{Pipeline, PipelineAssumptions};

/// The input side of one step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InputTime {
    /// Seconds of the main process per step (loading itself with no workers, receiving
    /// the batch otherwise, plus the copy to the GPU).
    pub main_s: f64,
    /// Seconds per step the workers need, divided over the workers that get a core.
    pub workers_s: f64,
    /// Workers that have a core of their own.
    pub effective_workers: u32,
    /// Samples per second the pipeline can deliver on its own.
    pub samples_per_s: f64,
    /// Bytes of one batch as it crosses PCIe.
    pub batch_bytes: f64,
}

/// What one step asks of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InputWork {
    pub batch: u32,
    /// Bytes of one input sample (fp32 patch).
    pub sample_bytes: f64,
    /// Host ops cost per op on this CPU (for the device-side gather), seconds.
    pub op_s: f64,
    /// Time factor of this CPU's cores (see `host::CpuProfile`).
    pub single_thread: f64,
    /// Cores this run may use for workers (its share of the host, less its main thread).
    pub spare_cores: u32,
    /// One-way PCIe x16 rate of the card, bytes/s.
    pub pcie_bytes_per_s: f64,
}

pub fn input_time(w: &InputWork, c: &Pipeline, a: &PipelineAssumptions) -> InputTime {
    let batch = f64::from(w.batch.max(1));
    let batch_bytes = batch * w.sample_bytes;
    if c.synthetic {
        return InputTime {
            samples_per_s: f64::INFINITY,
            batch_bytes,
            ..InputTime::default()
        };
    }
    if c.cube_on_gpu {
        let main_s = a.gpu_gather_ops * w.op_s;
        return InputTime {
            main_s,
            workers_s: 0.0,
            effective_workers: 0,
            samples_per_s: batch / main_s.max(f64::MIN_POSITIVE),
            batch_bytes,
        };
    }
    let augmented = f64::from(u8::from(c.augmentation));
    let per_sample = augmented * a.augment_sample_s
        + if c.precut {
            a.precut_sample_s
        } else {
            a.cut_sample_s
        };
    let cut = f64::from(u8::from(!c.precut));
    let per_byte = a.byte_s + cut * a.cut_byte_s + augmented * a.augment_byte_s;
    let load_s = w.single_thread * batch * (per_sample + w.sample_bytes * per_byte);
    let rate = a.pcie_efficiency * if c.pin_memory { 1.0 } else { a.pageable_factor };
    let copy_s = batch_bytes / (w.pcie_bytes_per_s * rate);
    let effective_workers = c.num_workers.min(w.spare_cores);
    // A worker's batch crosses in shared memory: the worker collates it into fresh shared
    // pages, the main process unpickles its handles, touches the pages and unmaps them.
    let sender_s = load_s + w.single_thread * batch_bytes * a.shared_byte_s;
    let receiver_s = w.single_thread * (a.batch_s + batch_bytes * a.worker_byte_s) + copy_s;
    let (main_s, workers_s) = if c.num_workers == 0 {
        (load_s + copy_s, 0.0)
    } else if effective_workers == 0 {
        // Workers without a core of their own take the main process's: it waits for them.
        (sender_s + receiver_s, 0.0)
    } else {
        (receiver_s, sender_s / f64::from(effective_workers))
    };
    InputTime {
        main_s,
        workers_s,
        effective_workers,
        samples_per_s: batch / main_s.max(workers_s).max(f64::MIN_POSITIVE),
        batch_bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work() -> InputWork {
        InputWork {
            batch: 64,
            sample_bytes: 30.0 * 13.0 * 13.0 * 4.0,
            op_s: 14e-6,
            single_thread: 1.0,
            spare_cores: 15,
            pcie_bytes_per_s: 31.5e9,
        }
    }

    /// For a large patch (25 x 25 x 200, 0.5 MB), where cutting costs more than receiving
    /// the batch; for small ones it does not, and workers lose (`tests/pipeline_bench.rs`).
    #[test]
    fn workers_take_cutting_off_the_main_process_more_than_indexing() {
        let a = PipelineAssumptions::default();
        let large = InputWork {
            sample_bytes: 200.0 * 25.0 * 25.0 * 4.0,
            ..work()
        };
        let with = |precut, num_workers| {
            input_time(
                &large,
                &Pipeline {
                    precut,
                    num_workers,
                    ..Pipeline::default()
                },
                &a,
            )
        };
        let (none, four) = (with(false, 0), with(false, 4));
        assert!(four.main_s < none.main_s);
        assert!(four.samples_per_s > none.samples_per_s);
        assert_eq!(four.effective_workers, 4);
        // Indexing a pre-cut tensor costs little more than receiving the batch: workers
        // gain it less (on the bench's machine they lost: `tests/pipeline_bench.rs`).
        let gain = |precut| with(precut, 4).samples_per_s / with(precut, 0).samples_per_s;
        assert!(gain(true) < 1.1 && gain(true) < gain(false));
    }

    /// A worker's collate into shared memory divides over the workers, the main process's
    /// receiving does not: for a large batch (SegFormer's 128 x 128 x 103 patches) one
    /// worker is slower than none, eight are faster.
    #[test]
    fn workers_divide_the_shared_memory_cost_but_not_the_receiving() {
        let a = PipelineAssumptions::default();
        let large = InputWork {
            batch: 512,
            sample_bytes: 103.0 * 128.0 * 128.0 * 4.0,
            ..work()
        };
        let rate = |num_workers| {
            let cut = Pipeline {
                precut: false,
                num_workers,
                ..Pipeline::default()
            };
            input_time(&large, &cut, &a).samples_per_s
        };
        assert!(rate(1) < rate(0));
        assert!(rate(8) > 1.4 * rate(0));
    }

    #[test]
    fn workers_beyond_the_spare_cores_do_not_help() {
        let a = PipelineAssumptions::default();
        let cut = Pipeline {
            precut: false,
            num_workers: 8,
            ..Pipeline::default()
        };
        let cores = |spare_cores| {
            input_time(
                &InputWork {
                    spare_cores,
                    ..work()
                },
                &cut,
                &a,
            )
        };
        assert_eq!(cores(2).effective_workers, 2);
        assert!(cores(2).workers_s > cores(8).workers_s);
        assert_eq!(cores(8).workers_s, cores(12).workers_s);
    }

    #[test]
    fn cutting_augmenting_and_bigger_patches_cost_more() {
        let a = PipelineAssumptions::default();
        let base = Pipeline::default();
        let t = |c: &Pipeline, w: &InputWork| input_time(w, c, &a).main_s;
        let cut = Pipeline {
            precut: false,
            ..base.clone()
        };
        let augmented = Pipeline {
            augmentation: true,
            ..cut.clone()
        };
        assert!(t(&cut, &work()) > t(&base, &work()));
        assert!(t(&augmented, &work()) > t(&cut, &work()));
        let bigger = InputWork {
            sample_bytes: 200.0 * 27.0 * 27.0 * 4.0,
            ..work()
        };
        assert!(t(&base, &bigger) > t(&base, &work()));
    }

    #[test]
    fn a_resident_cube_costs_only_the_gather_ops() {
        let a = PipelineAssumptions::default();
        let gpu = Pipeline {
            cube_on_gpu: true,
            ..Pipeline::default()
        };
        let t = input_time(&work(), &gpu, &a);
        assert_eq!(t.main_s, a.gpu_gather_ops * work().op_s);
        assert!(t.main_s < input_time(&work(), &Pipeline::default(), &a).main_s);
    }

    #[test]
    fn pinned_copies_are_faster() {
        let a = PipelineAssumptions::default();
        let pinned = Pipeline {
            pin_memory: true,
            ..Pipeline::default()
        };
        assert!(
            input_time(&work(), &pinned, &a).main_s
                < input_time(&work(), &Pipeline::default(), &a).main_s
        );
    }
}
