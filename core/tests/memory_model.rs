//! The memory model: worked examples computed by hand from first principles.

use hsi_gpu_core::analysis::analyze;
use hsi_gpu_core::graph::{ops, ModelBuilder, Op};
use hsi_gpu_core::scenario::{ModelChoice, Precision};
use hsi_gpu_core::{estimate, Scenario};

/// The article's example (sec. 5.2): a 3-D conv with 32 output channels over a
/// 16 x 16 x 200 patch at batch 64 in fp32. 64*32*16*16*200 values x 4 B = 4.19e8 B
/// (0.42 GB; the article's "4.2 GB" is off by ten).
#[test]
fn article_first_layer_activation_is_0_42_gb() {
    let mut b = ModelBuilder::new("article", vec![1, 200, 16, 16]);
    b.push(ops::conv(3, 32, &[3], &[1]));
    let a = analyze(&b.build(), 64, Precision::Fp32).unwrap();
    let out = a.layers[0].output_bytes;
    assert_eq!(out, (64u64 * 32 * 16 * 16 * 200 * 4) as f64);
    assert!((out / 1e8 - 4.19).abs() < 0.01, "{out}");
}

/// Conv keeps its input, ReLU its output, the loss its fp32 log-probs, int64 targets and
/// nll_loss's 0-d fp32 total_weight.
#[test]
fn saved_bytes_follow_autograd() {
    let mut b = ModelBuilder::new("tiny", vec![4, 8, 8]);
    b.push(ops::conv(2, 6, &[3], &[1]))
        .push(ops::relu())
        .push(hsi_gpu_core::graph::Op::Flatten)
        .push(ops::linear(5));
    let a = analyze(&b.build(), 2, Precision::Fp32).unwrap();
    let input = 2 * 4 * 8 * 8 * 4;
    let relu_out = 2 * 6 * 8 * 8 * 4; // kept by ReLU and again (same storage) by Linear
    let loss = 2 * 5 * 4 + 2 * 8 + 4;
    assert_eq!(a.saved_bytes, (input + relu_out + loss) as f64);
    assert_eq!(a.params, 6 * 4 * 9 + 6 + 6 * 64 * 5 + 5);
    // The first conv sees the data (no input gradient): backward = 1x forward.
    assert_eq!(a.layers[0].bwd_flops, a.layers[0].fwd_flops);
    assert_eq!(a.layers[3].bwd_flops, 2.0 * a.layers[3].fwd_flops);
}

#[test]
fn custom_model_scenario_round_trips_through_json() {
    let mut b = ModelBuilder::new("custom", vec![1, 30, 9, 9]);
    b.push(ops::conv(3, 8, &[3], &[])).push(ops::relu());
    let s = Scenario {
        model: ModelChoice::Custom { spec: b.build() },
        ..Scenario::default()
    };
    let json = serde_json::to_string(&s).unwrap();
    let back: Scenario = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    let report = estimate(&back).unwrap();
    assert_eq!(report.params, 8 * 27 + 8);
    assert!(report.memory.fits);
}

/// The caching-allocator replay sees each kept tensor on its own, once, and the forward
/// outputs backward keeps none of (a view allocates nothing).
#[test]
fn the_replay_sees_tensors_one_by_one() {
    let mut b = ModelBuilder::new("pool", vec![4, 8, 8]);
    b.push(ops::conv(2, 6, &[3], &[1]))
        .push(Op::BatchNorm)
        .push(ops::relu())
        .push(Op::MaxPool {
            dims: 2,
            kernel: vec![2, 2],
            stride: vec![2, 2],
            padding: vec![],
            ceil_mode: false,
        })
        .push(Op::Flatten)
        .push(ops::linear(5));
    let a = analyze(&b.build(), 2, Precision::Fp32).unwrap();
    let lines = &a.lines;
    let run = |layer: usize| {
        let start = layer.checked_sub(1).map_or(0, |i| lines.layer_kept_end[i]);
        &lines.kept_tensors[start..lines.layer_kept_end[layer]]
    };
    // Each layer's run adds up to what it reports keeping.
    for (layer, l) in a.layers.iter().enumerate() {
        let total: f64 = run(layer).iter().map(|b| b.at(2)).sum();
        assert_eq!(total, l.saved_bytes);
    }
    let per_sample = |layer: usize| -> Vec<f64> {
        run(layer)
            .iter()
            .map(|b| b.per_sample)
            .filter(|&b| b > 0.0)
            .collect()
    };
    // 6 x 8 x 8 outputs: the ReLU keeps its own; the pool, which needs it too, adds only
    // its 6 x 4 x 4 int64 indices.
    assert_eq!(per_sample(2), [6.0 * 8.0 * 8.0 * 4.0]);
    assert_eq!(per_sample(3), [6.0 * 4.0 * 4.0 * 8.0]);
    // The batch norm's output goes to the ReLU, which keeps only its own output.
    assert_eq!(
        lines.layer_unkept_output[1].per_sample,
        6.0 * 8.0 * 8.0 * 4.0
    );
    // The flatten of a contiguous tensor is a view.
    assert_eq!(lines.layer_unkept_output[4].per_sample, 0.0);
}

/// Checkpointing (2 segments of 2 layers here) recomputes one segment at a time in
/// backward, from the last, and frees a segment's input once that segment is done: while
/// the first segment runs again the second's input (ReLU 1's output) is gone, and the
/// first keeps that output itself; so the peak is the larger of segment 0's tensors and
/// segment 1's input plus its tensors, not every input plus the largest segment.
#[test]
fn checkpointing_keeps_the_inputs_of_the_segments_not_yet_done() {
    let mut b = ModelBuilder::new("two segments", vec![4, 8, 8]);
    b.push(ops::conv(2, 16, &[3], &[1]))
        .push(ops::relu())
        .push(ops::conv(2, 2, &[3], &[1]))
        .push(ops::relu());
    let a = analyze(&b.build(), 2, Precision::Fp32).unwrap();
    let input = 2 * 4 * 64 * 4; // kept by conv 0
    let relu1 = 2 * 16 * 64 * 4; // kept by ReLU 1, then conv 2 (same storage)
    let relu3 = 2 * 2 * 64 * 4;
    let loss = 2 * 2 * 64 * 4 + 2 * 64 * 8 + 4; // per-pixel log-probs, targets, weight
    let peak = (input + relu1).max(relu1 + relu3);
    assert_eq!(
        hsi_gpu_core::memory::checkpointed_activations(&a, 2),
        (peak + loss) as f64
    );
}

/// At the card's limit the caching allocator hands its cached segments back, and the
/// total shrinks to what the card holds: SSFTT in bf16 on an A100 40 GB reads 32.0 GiB at
/// batch 168,386 and 34.5 GiB at 140,000. The squeezed batch keeps no headroom, and the
/// largest batch stops below the first one past the budget.
#[test]
fn a_batch_squeezed_at_the_cards_limit_keeps_no_headroom() {
    let at = |batch: u32| {
        let s: Scenario = hsi_gpu_core::scenario::scenario_from_json(&format!(
            r#"{{"model": {{"kind": "preset", "id": "ssftt"}}, "bands": 30, "patch": 11,
                "precision": "bf16", "gpu": "a100_40_pcie", "batch_per_gpu": {batch}}}"#
        ))
        .unwrap();
        estimate(&s).unwrap()
    };
    let squeezed = at(168_386).memory;
    assert!(squeezed.fits && squeezed.total <= squeezed.budget);
    assert!(!squeezed.within_budget);
    let over = at(140_000).memory;
    assert!(over.fits && over.total > over.budget && !over.within_budget);
    let largest = at(64).max_batch;
    assert!(largest < 140_000, "{largest}");
    assert!(at(largest).memory.within_budget);
}

/// A layer's gradients are allocated when backward reaches it (AccumulateGrad), not all at
/// the start of backward: there HybridSN's 3.2 MiB linear-weight gradient split the free
/// tail of the 4.2 GiB segment cached for the first convolution's cuDNN workspace and held
/// it for good, so the backward's 2 GB temporaries and 4.2 GiB workspace each took a new
/// segment: the reserved peak went 9.4 -> 17.5 GiB from batch 13,965 to 13,966 on an RTX
/// A4500, and the largest batch was 18,306 on the 16 GB A4000 but 13,965 on the 20 GB
/// A4500. Now the peak grows with the batch, and the largest batch with the card.
#[test]
fn the_reserved_peak_and_the_largest_batch_grow_smoothly() {
    use hsi_gpu_core::gpu::gpu_by_id;
    let scenario = |gpu: &str| {
        hsi_gpu_core::scenario::scenario_from_json(&format!(
            r#"{{"model": {{"kind": "preset", "id": "hybridsn"}}, "bands": 103, "patch": 9,
                "precision": "bf16", "gpu": "{gpu}"}}"#
        ))
        .unwrap()
    };
    let s = scenario("rtx_a4500");
    let spec = hsi_gpu_core::build_model(&s).unwrap();
    let gpu = gpu_by_id(&s.gpu).unwrap();
    let reserved = |batch| {
        hsi_gpu_core::memory::breakdown_of(&spec, &s, gpu, batch)
            .unwrap()
            .reserved_peak
    };
    let mut previous = reserved(13_900);
    for batch in (13_910..=14_100).step_by(10) {
        let now = reserved(batch);
        assert!(
            now >= previous && now < previous * 1.01,
            "batch {batch}: {previous} -> {now} B"
        );
        previous = now;
    }
    let largest: Vec<u32> = ["rtx_a4000", "rtx_a4500", "rtx_a5000"]
        .iter()
        .map(|id| {
            let s = scenario(id);
            hsi_gpu_core::memory::max_batch(&spec, &s, gpu_by_id(id).unwrap()).unwrap()
        })
        .collect();
    assert!(largest.windows(2).all(|w| w[0] < w[1]), "{largest:?}");
}
