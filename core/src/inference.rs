//! Evaluation and whole-scene prediction: the work after training that HSI papers do on
//! most of the scene (test on every labelled pixel not used for training, then predict a
//! class map for all H x W pixels, one patch per pixel) and that can cost more than the
//! training itself.
//!
//! - **No-grad memory.** Under `torch.no_grad()` nothing is kept for backward: a layer's
//!   output lives from its kernel until the layer after its last consumer has run (eager
//!   code frees a statement's input when the statement ends; views share their source's
//!   storage; dropout is the identity in eval mode), the input batch as long as the
//!   caller holds it, and a layer's scratch (attention scores, a recurrent layer's gate
//!   workspace, max-pool's indices) while it runs. The activation peak is the largest sum
//!   of live tensors at any layer, in the order the model runs, checked against PyTorch's
//!   live tensors by `tools/validate_no_grad.py`. Total = CUDA context + weights (+ the 16-bit
//!   copies autocast makes of them) + that peak x (1 + allocator fragmentation). Every
//!   tensor is per-sample linear, so the largest batch has a closed form.
//! - **Time.** Batches of the largest batch that fits (capped at the pixels to predict)
//!   each cost one forward pass of the performance model at that batch; the patches
//!   cross PCIe once (a rough host-to-device rate; cutting them on the host is not
//!   counted).
//! - **Deployment what-if**: the same prediction on smaller cards (a Jetson module, a
//!   T4, an L4).

use serde::Serialize;

use crate::analysis::{analyze_with, Analysis, Training};
use crate::dataset::dataset_by_id;
use crate::gpu::{gpu_by_id, GpuSpec};
use crate::graph::{ModelSpec, Op};

/// Layers a tensor outlives its last reader by: eager code holds a layer's input while
/// the rest of its statement runs (`x = relu(conv(x))` frees the old `x` after the
/// ReLU). 1 against PyTorch's live tensors (docs/validation.md, "No-grad peak memory"): median
/// error 16 % over the zoo, against 22 % (every estimate low) when freed at once.
const STATEMENT_LAG: usize = 1;
use crate::scaling::pcie_x16_bytes_per_s;
use crate::scenario::{FieldError, Precision, Scenario, MAX_BATCH};

/// Cards the deployment what-if tries.
pub const DEPLOYMENT_CARDS: [&str; 3] = ["jetson_agx_orin_64", "t4", "l4"];

/// One layer of the forward graph for liveness.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveLayer {
    /// Storages this layer reads (0 is the model input, k + 1 the output of layer k's
    /// storage owner).
    pub reads: Vec<usize>,
    /// The storage its output lives in: its own (`index + 1`) or, for a view, its input's.
    pub storage: usize,
    /// Bytes per sample of a new output (0 for a view).
    pub output_per_sample: f64,
    /// Bytes per sample the layer allocates and frees inside itself (attention's scores,
    /// a recurrent layer's gate workspace, max-pool's int64 indices).
    pub scratch_per_sample: f64,
}

/// The forward graph as storages: the input's bytes per sample and each layer.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveGraph {
    pub input_per_sample: f64,
    pub layers: Vec<LiveLayer>,
}

/// The liveness graph of an analysed model: `from` names resolved as the analysis does
/// (empty = the previous layer), a layer that launches no forward kernel with one input
/// is a view of it.
pub fn live_graph(spec: &ModelSpec, a: &Analysis) -> LiveGraph {
    let batch = a.batch.max(1) as f64;
    let mut names: Vec<(String, usize)> = vec![("input".into(), 0)];
    let mut previous = 0;
    let mut layers = Vec::with_capacity(spec.layers.len());
    for (index, (layer, report)) in spec.layers.iter().zip(&a.layers).enumerate() {
        let reads: Vec<usize> = if layer.from.is_empty() {
            vec![previous]
        } else {
            layer
                .from
                .iter()
                .filter_map(|f| names.iter().rev().find(|(n, _)| n == f).map(|(_, s)| *s))
                .collect()
        };
        // In eval mode dropout and stochastic depth return their input.
        let identity = matches!(layer.op, Op::Dropout { .. } | Op::DropPath);
        let view = (report.kernels_fwd == 0 || identity) && reads.len() == 1;
        let storage = if view { reads[0] } else { index + 1 };
        // CUDA's max-pool always writes int64 indices beside its output.
        let indices = if matches!(layer.op, Op::MaxPool { .. }) {
            report.output_shape.iter().product::<u64>() as f64 * 8.0
        } else {
            0.0
        };
        layers.push(LiveLayer {
            reads,
            storage,
            output_per_sample: if view {
                0.0
            } else {
                report.output_bytes / batch
            },
            scratch_per_sample: report.scratch_bytes / batch + indices,
        });
        names.push((report.name.clone(), storage));
        previous = storage;
    }
    let input_per_sample = a.layers.first().map_or(0.0, |l| l.input_bytes / batch);
    LiveGraph {
        input_per_sample,
        layers,
    }
}

/// Largest bytes per sample alive at once in a no-grad forward pass: at each layer, every
/// storage produced and still to be read (or the model's output), plus the new output.
pub fn no_grad_peak_per_sample(g: &LiveGraph) -> f64 {
    let n = g.layers.len();
    let mut size = vec![0.0; n + 1];
    size[0] = g.input_per_sample;
    // Last layer reading each storage; the final output stays alive to the end.
    let mut last_read = vec![0usize; n + 1];
    for (i, l) in g.layers.iter().enumerate() {
        size[l.storage] += l.output_per_sample;
        for &r in &l.reads {
            last_read[r] = last_read[r].max(i + 1 + STATEMENT_LAG);
        }
    }
    // The caller holds the input batch and receives the output.
    last_read[0] = n + 1;
    if let Some(last) = g.layers.last() {
        last_read[last.storage] = n + 1;
    }
    let mut peak = 0.0f64;
    let mut created = vec![false; n + 1];
    created[0] = true;
    for (i, l) in g.layers.iter().enumerate() {
        created[l.storage] = true;
        let live: f64 = (0..=n)
            .filter(|&s| created[s] && last_read[s] > i)
            .map(|s| size[s])
            .sum::<f64>()
            + l.scratch_per_sample;
        peak = peak.max(live);
    }
    peak.max(g.input_per_sample)
}

/// No-grad memory per card at a batch: `fixed` (context and weights) plus the activation
/// peak with allocator overhead.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NoGradMemory {
    pub fixed_bytes: f64,
    pub per_sample_bytes: f64,
}

impl NoGradMemory {
    pub fn at(&self, batch: u32) -> f64 {
        self.fixed_bytes + f64::from(batch) * self.per_sample_bytes
    }

    /// Largest batch within `budget` (0 when not even one sample fits), at most `cap`.
    pub fn max_batch(&self, budget: f64, cap: u32) -> u32 {
        if self.per_sample_bytes <= 0.0 {
            return if self.fixed_bytes <= budget { cap } else { 0 };
        }
        let room = (budget - self.fixed_bytes) / self.per_sample_bytes;
        if room < 1.0 {
            0
        } else {
            room.floor().min(f64::from(cap)) as u32
        }
    }
}

/// Time to push `pixels` patches through the model at `batch` per forward pass:
/// full batches and the remainder, each from `forward_s(batch)`, plus the patches' bytes
/// over the host link.
pub fn pass_time(
    pixels: u64,
    batch: u32,
    bytes_per_sample: f64,
    host_link_bytes_per_s: f64,
    forward_s: impl Fn(u32) -> f64,
) -> f64 {
    if pixels == 0 || batch == 0 {
        return 0.0;
    }
    let batch64 = u64::from(batch);
    let full = pixels / batch64;
    let rest = (pixels % batch64) as u32;
    let mut t = full as f64 * forward_s(batch);
    if rest > 0 {
        t += forward_s(rest);
    }
    t + pixels as f64 * bytes_per_sample / host_link_bytes_per_s
}

/// Prediction of a whole scene on one deployment card.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Deployment {
    pub gpu: String,
    pub max_batch_no_grad: u32,
    /// None when not even one patch fits.
    pub scene_prediction_s: Option<f64>,
}

/// Evaluation and prediction figures for a scenario (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct InferenceReport {
    /// Labelled pixels not used for training (the test set).
    pub test_pixels: u64,
    /// H x W of the scene.
    pub scene_pixels: u64,
    /// Largest no-grad batch within the memory budget (capped at the scene's pixels).
    pub max_batch_no_grad: u32,
    /// No-grad memory per card at that batch.
    pub no_grad_peak_bytes: f64,
    /// One pass over the test pixels (None: not even one patch fits).
    pub eval_pass_s: Option<f64>,
    /// A test pass after every epoch (what some training scripts do).
    pub eval_every_epoch_s: Option<f64>,
    /// Every pixel of the scene, one patch each.
    pub scene_prediction_s: Option<f64>,
    /// Scene prediction / one training run.
    pub prediction_vs_training: Option<f64>,
    /// A test pass after every epoch / one training run.
    pub eval_vs_training: Option<f64>,
    pub deployment: Vec<Deployment>,
}

/// Fraction of the PCIe x16 rate a pinned host-to-device copy of patches reaches. Rough.
pub const HOST_LINK_EFFICIENCY: f64 = 0.8;

/// No-grad memory of the scenario's model on a card: context, weights (fp32 or bf16, plus
/// the 16-bit copies autocast makes) and the activation peak with allocator overhead.
pub fn no_grad_memory(spec: &ModelSpec, a: &Analysis, s: &Scenario, gpu: &GpuSpec) -> NoGradMemory {
    let params = a.params as f64;
    let autocast_copies = match s.precision {
        Precision::AmpFp16 | Precision::AmpBf16 => 2.0,
        _ => 0.0,
    };
    let weights = params * (s.precision.param_bytes() as f64 + autocast_copies);
    let peak = no_grad_peak_per_sample(&live_graph(spec, a));
    NoGradMemory {
        fixed_bytes: crate::memory::cuda_context(s, gpu) + weights,
        per_sample_bytes: peak * (1.0 + s.memory.fragmentation),
    }
}

/// Largest no-grad batch on `gpu` (capped at `pixels`) and the time to predict `pixels`
/// patches with it; None when not even one patch fits.
fn predict(
    spec: &ModelSpec,
    memory: &NoGradMemory,
    s: &Scenario,
    gpu: &GpuSpec,
    pixels: u64,
    input_per_sample: f64,
) -> Result<(u32, Option<f64>), FieldError> {
    let cap = pixels.clamp(1, u64::from(MAX_BATCH)) as u32;
    let batch = memory.max_batch(crate::memory::budget(s, gpu), cap);
    if batch == 0 {
        return Ok((0, None));
    }
    let mut forward = Vec::new();
    for b in [batch, (pixels % u64::from(batch)) as u32] {
        let t = if b == 0 {
            0.0
        } else {
            // The attention kernel of this card (a deployment card may differ).
            let at_b = analyze_with(spec, b.into(), &Training::of(s, gpu))?;
            crate::perf::forward_s(&at_b.layers, s, gpu)
        };
        forward.push((b, t));
    }
    let link = pcie_x16_bytes_per_s(gpu.pcie_gen) * HOST_LINK_EFFICIENCY;
    let t = pass_time(pixels, batch, input_per_sample, link, |b| {
        forward
            .iter()
            .find(|(fb, _)| *fb == b)
            .map_or(0.0, |(_, t)| *t)
    });
    Ok((batch, Some(t)))
}

/// Evaluation and scene prediction for a scenario whose model is `spec` (analysed as `a`)
/// on `gpu`; `training_run_s` is one training run's wall time. None without a catalog
/// dataset (no scene size).
pub fn inference(
    spec: &ModelSpec,
    a: &Analysis,
    s: &Scenario,
    gpu: &GpuSpec,
    training_run_s: f64,
) -> Result<Option<InferenceReport>, FieldError> {
    let Some(dataset) = dataset_by_id(&s.dataset) else {
        return Ok(None);
    };
    let scene_pixels = u64::from(dataset.height) * u64::from(dataset.width);
    let train = (dataset.labeled_pixels as f64 * s.workload.train_fraction).ceil() as u64;
    let test_pixels = dataset.labeled_pixels.saturating_sub(train);
    let memory = no_grad_memory(spec, a, s, gpu);
    let input_per_sample = live_graph(spec, a).input_per_sample;
    let (batch, scene_s) = predict(spec, &memory, s, gpu, scene_pixels, input_per_sample)?;
    let (_, eval_s) = predict(spec, &memory, s, gpu, test_pixels, input_per_sample)?;
    let mut deployment = Vec::new();
    for id in DEPLOYMENT_CARDS {
        let card = gpu_by_id(id).expect("deployment cards are in the catalog");
        let (b, t) = predict(spec, &memory, s, card, scene_pixels, input_per_sample)?;
        deployment.push(Deployment {
            gpu: card.name.into(),
            max_batch_no_grad: b,
            scene_prediction_s: t,
        });
    }
    let eval_every_epoch_s = eval_s.map(|t| f64::from(s.workload.epochs) * t);
    let of_training = |t: Option<f64>| {
        t.filter(|_| training_run_s > 0.0)
            .map(|t| t / training_run_s)
    };
    Ok(Some(InferenceReport {
        test_pixels,
        scene_pixels,
        max_batch_no_grad: batch,
        no_grad_peak_bytes: memory.at(batch),
        eval_pass_s: eval_s,
        eval_every_epoch_s,
        scene_prediction_s: scene_s,
        prediction_vs_training: of_training(scene_s),
        eval_vs_training: of_training(eval_every_epoch_s),
        deployment,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(reads: &[usize], storage: usize, out: f64) -> LiveLayer {
        LiveLayer {
            reads: reads.to_vec(),
            storage,
            output_per_sample: out,
            scratch_per_sample: 0.0,
        }
    }

    #[test]
    fn a_chain_holds_the_batch_and_each_input_through_the_next_layer() {
        let g = LiveGraph {
            input_per_sample: 10.0,
            layers: vec![
                layer(&[0], 1, 40.0),
                layer(&[1], 2, 20.0),
                layer(&[2], 3, 5.0),
            ],
        };
        // At the third layer: the batch (10), layer 1's 40 (read by layer 2, the
        // statement `x = f3(f2(x))` still holds it), 20 and the new 5.
        assert_eq!(no_grad_peak_per_sample(&g), 75.0);
        let mut scratch = g.clone();
        scratch.layers[0].scratch_per_sample = 100.0;
        assert_eq!(no_grad_peak_per_sample(&scratch), 150.0, "10 + 40 + 100");
    }

    #[test]
    fn a_skip_connection_keeps_its_source_alive_and_a_view_adds_nothing() {
        // 1 = conv(input); 2 = conv(1); 3 = add(1, 2); 4 = flatten(3) is a view.
        let g = LiveGraph {
            input_per_sample: 10.0,
            layers: vec![
                layer(&[0], 1, 40.0),
                layer(&[1], 2, 40.0),
                layer(&[1, 2], 3, 40.0),
                layer(&[3], 3, 0.0),
            ],
        };
        // At the add: the batch, 1, 2 and 3 are alive.
        assert_eq!(no_grad_peak_per_sample(&g), 130.0);
    }

    #[test]
    fn the_largest_batch_fills_the_budget() {
        let m = NoGradMemory {
            fixed_bytes: 100.0,
            per_sample_bytes: 10.0,
        };
        assert_eq!(m.max_batch(1000.0, 1 << 20), 90);
        assert_eq!(m.max_batch(1000.0, 50), 50);
        assert_eq!(m.max_batch(105.0, 50), 0);
    }

    #[test]
    fn a_pass_is_full_batches_plus_the_rest_plus_the_transfer() {
        let t = pass_time(250, 100, 4.0, 1000.0, |b| f64::from(b) / 100.0);
        assert!((t - (2.0 + 0.5 + 1.0)).abs() < 1e-12);
    }
}
