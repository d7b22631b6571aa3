//! Pipeline parallelism: the layer list cut into `p` stages of consecutive layers, one per
//! GPU, balanced by their estimated time, run with the 1F1B schedule (PipeDream-Flush,
//! Narayanan et al. SC'21, arXiv 2104.04473, section 2.2.1: Megatron's default
//! non-interleaved schedule).
//!
//! - Each optimizer step pushes `m` micro-batches of `batch_per_gpu` samples through the
//!   stages. The first micro-batch's forward and the last one's backward cross every
//!   stage; in between the slowest stage sets the pace: one flush takes
//!   (m - 1) x max_i u_i + sum_i u_i, u_i being stage i's forward, backward and sends for
//!   one micro-batch. With balanced stages that is (m + p - 1) x u, idle for the bubble
//!   (p - 1) / (m + p - 1) of it.
//! - Stages hold whole units: runs of layers sharing a name prefix (a transformer
//!   block), as Megatron hands each stage whole layers.
//! - Stage i (from 0) holds the activations of min(p - i, m) micro-batches at once: 1F1B
//!   starts p - i forwards before its first backward.
//! - Between stages every tensor a later layer reads crosses: forward the activations,
//!   backward their gradients, the same bytes, point to point.
//!
//! Simplified: a tensor kept by layers on both sides of a cut is counted once, on the
//! earlier stage; the model input is read by the first stage only.

use std::ops::Range;

use crate::analysis::{Analysis, Bytes, LayerReport, MemoryLines};

/// The 1F1B schedule's idle share, (p - 1) / (m + p - 1), with balanced stages.
pub fn bubble_fraction(stages: u32, micro_batches: u32) -> f64 {
    let p = f64::from(stages.max(1));
    (p - 1.0) / (f64::from(micro_batches.max(1)) + p - 1.0)
}

/// Micro-batches whose activations stage `stage` of `stages` keeps at once.
pub fn in_flight(stage: u32, stages: u32, micro_batches: u32) -> u32 {
    stages.saturating_sub(stage).clamp(1, micro_batches.max(1))
}

/// Seconds of one flush of `micro_batches` through stages that take `per_micro[i]` each
/// for one micro-batch.
pub fn flush_s(per_micro: &[f64], micro_batches: u32) -> f64 {
    let slowest = per_micro.iter().copied().fold(0.0, f64::max);
    f64::from(micro_batches.max(1) - 1) * slowest + per_micro.iter().sum::<f64>()
}

/// `stages` ranges of consecutive layers, none empty, whose largest total of `times` is
/// as small as it can be (`times` must have at least `stages` entries).
pub fn balance(times: &[f64], stages: usize) -> Vec<Range<usize>> {
    let n = times.len();
    let stages = stages.clamp(1, n.max(1));
    let sum = |r: &Range<usize>| times[r.clone()].iter().sum::<f64>();
    // As few ranges as a limit allows, each as long as it stays within the limit.
    let greedy = |limit: f64| {
        let (mut out, mut start, mut total) = (Vec::new(), 0, 0.0);
        for (i, t) in times.iter().enumerate() {
            if i > start && total + t > limit {
                out.push(start..i);
                (start, total) = (i, 0.0);
            }
            total += t;
        }
        out.push(start..n);
        out
    };
    let (mut lo, mut hi) = (
        times.iter().copied().fold(0.0, f64::max),
        times.iter().sum::<f64>(),
    );
    for _ in 0..64 {
        let mid = 0.5 * (lo + hi);
        if greedy(mid).len() <= stages {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let mut ranges = greedy(hi);
    // Fewer ranges than stages (ties, layers that take no time): split the longest-running
    // range of two or more layers where its halves are closest.
    while ranges.len() < stages {
        let Some(k) = (0..ranges.len())
            .filter(|&k| ranges[k].len() > 1)
            .max_by(|&a, &b| sum(&ranges[a]).total_cmp(&sum(&ranges[b])))
        else {
            break;
        };
        let r = ranges[k].clone();
        let uneven = |c: usize| (sum(&(r.start..c)) - sum(&(c..r.end))).abs();
        let cut = (r.start + 1..r.end)
            .min_by(|&a, &b| uneven(a).total_cmp(&uneven(b)))
            .unwrap_or(r.start + 1);
        // In place and one insert (a `splice` brings its draining code for this alone).
        ranges[k] = r.start..cut;
        ranges.insert(k + 1, cut..r.end);
    }
    ranges
}

/// Runs of consecutive layers that share a name prefix (`block3.attn`, `block3.fc1` ->
/// `block3`): the units a stage holds whole, as Megatron gives each stage whole
/// transformer layers. A layer without a prefix is a unit of its own.
pub fn units(layers: &[LayerReport]) -> Vec<Range<usize>> {
    let prefix = |l: &LayerReport| l.name.rsplit_once('.').map(|(p, _)| p.to_string());
    let mut out: Vec<Range<usize>> = Vec::new();
    for (i, l) in layers.iter().enumerate() {
        let joins = out.last().is_some_and(|last| {
            let p = prefix(l);
            p.is_some() && p == prefix(&layers[last.start])
        });
        match out.last_mut() {
            Some(last) if joins => last.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// `stages` ranges of whole `units` (of layers taking `times`), balanced by time; of
/// single layers where there are fewer units than stages.
pub fn cut(times: &[f64], units: &[Range<usize>], stages: usize) -> Vec<Range<usize>> {
    if units.len() < stages {
        return balance(times, stages);
    }
    let unit_times: Vec<f64> = units
        .iter()
        .map(|u| times[u.clone()].iter().sum())
        .collect();
    balance(&unit_times, stages)
        .into_iter()
        .map(|r| units[r.start].start..units[r.end - 1].end)
        .collect()
}

/// Bytes per micro-batch of the tensors made before layer `cut` and read from it on
/// (`feeds`: the layers each layer feeds).
pub fn crossing_bytes(feeds: &[Vec<usize>], layers: &[LayerReport], cut: usize) -> f64 {
    layers[..cut.min(layers.len())]
        .iter()
        .zip(feeds)
        .filter(|(_, f)| f.iter().any(|&j| j >= cut))
        .map(|(l, _)| l.output_bytes)
        .sum()
}

/// What one stage's GPU holds, as an analysis the memory breakdown reads: the layers of
/// `range`, the activations of `in_flight` micro-batches (the recomputed segment of
/// checkpointing once), the loss on the last stage, the input batch on the first.
pub fn stage_analysis(a: &Analysis, range: Range<usize>, in_flight: u32) -> Analysis {
    let k = f64::from(in_flight.max(1));
    let times = |b: Bytes| Bytes {
        per_sample: k * b.per_sample,
        fixed: k * b.fixed,
    };
    let first = range.start == 0;
    let last = range.end >= a.layers.len();
    let l = &a.lines;
    let own = |v: &[Bytes]| v[range.clone()].to_vec();
    let kept_start = range
        .start
        .checked_sub(1)
        .map_or(0, |i| l.layer_kept_end[i]);
    let kept_end = range.end.checked_sub(1).map_or(0, |i| l.layer_kept_end[i]);
    let kept = l.kept_tensors[kept_start..kept_end]
        .iter()
        .fold(Bytes::ZERO, |sum, b| sum + *b);
    let loss_saved = if last {
        times(l.loss_saved)
    } else {
        Bytes::ZERO
    };
    let lines = MemoryLines {
        saved: times(kept) + loss_saved,
        loss_saved,
        unsaved_input: if first {
            times(l.unsaved_input)
        } else {
            Bytes::ZERO
        },
        transient: own(&l.transient),
        kept_tensors: l.kept_tensors[kept_start..kept_end].to_vec(),
        layer_kept_end: l.layer_kept_end[range.clone()]
            .iter()
            .map(|end| end - kept_start)
            .collect(),
        layer_unkept_output: own(&l.layer_unkept_output),
        layer_output: own(&l.layer_output).into_iter().map(times).collect(),
    };
    let layers = a.layers[range].to_vec();
    Analysis {
        params: layers.iter().map(|l| l.params).sum(),
        trainable_params: layers.iter().map(|l| l.trainable_params).sum(),
        fwd_flops: layers.iter().map(|l| l.fwd_flops).sum(),
        bwd_flops: layers.iter().map(|l| l.bwd_flops).sum(),
        saved_bytes: lines.saved.at(a.batch),
        loss_saved_bytes: lines.loss_saved.at(a.batch),
        unsaved_input_bytes: lines.unsaved_input.at(a.batch),
        transient_bytes: lines.transient_at(a.batch),
        output_shape: layers
            .last()
            .map_or_else(|| a.output_shape.clone(), |l| l.output_shape.clone()),
        batch: a.batch,
        layers,
        lines,
    }
}
