//! The `rnn` op (nn.LSTM / nn.GRU) against PyTorch: every case of
//! `fixtures/pytorch_rnn.json` (written by `tools/validate_rnn.py`: cell, layers,
//! bidirectional, bias, batch_first, input with and without a gradient, fp32 and bf16
//! autocast) must match torch's parameter count, flop_counter's FLOPs and the
//! saved-tensor hooks' bytes exactly. Bad shapes and options are field errors.

use hsi_gpu_core::analysis::analyze;
use hsi_gpu_core::graph::{ModelSpec, Op, RnnCell};
use hsi_gpu_core::scenario::Precision;
use serde::Deserialize;

mod common;

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    spec: ModelSpec,
    batch: u64,
    precision: Precision,
    params: u64,
    fwd_flops: f64,
    bwd_flops: f64,
    saved_bytes: f64,
}

fn fixture() -> Fixture {
    common::read_fixture("pytorch_rnn.json")
}

#[test]
fn lstm_and_gru_match_pytorch_exactly_in_every_option() {
    let cases = fixture().cases;
    assert_eq!(cases.len(), 96, "the fixture covers the option grid");
    let mut wrong = Vec::new();
    for case in &cases {
        let a = analyze(&case.spec, case.batch, case.precision).unwrap();
        let got = [a.params as f64, a.fwd_flops, a.bwd_flops, a.saved_bytes];
        let want = [
            case.params as f64,
            case.fwd_flops,
            case.bwd_flops,
            case.saved_bytes,
        ];
        if got != want {
            wrong.push(format!(
                "{:?} {:?}: got {got:?}, PyTorch {want:?}",
                case.spec.layers, case.precision
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn rnn(hidden: u64, layers: u64) -> Op {
    Op::Rnn {
        cell: RnnCell::Lstm,
        hidden,
        layers,
        bidirectional: false,
        bias: true,
        batch_first: true,
    }
}

fn spec(input: Vec<u64>, op: Op) -> ModelSpec {
    serde_json::from_value(serde_json::json!({
        "name": "r", "input": input, "layers": [op]
    }))
    .unwrap()
}

#[test]
fn an_rnn_needs_a_sequence_and_a_sane_size() {
    for (input, op, allowed) in [
        (vec![3, 4, 5], rnn(8, 1), "a sequence [T, D]"),
        (vec![10, 4], rnn(0, 1), "a positive hidden size"),
        (vec![10, 4], rnn(8, 0), "1 to 100 layers"),
        (vec![10, 4], rnn(8, 1_000_000_000), "1 to 100 layers"),
    ] {
        let e = analyze(&spec(input, op), 2, Precision::Fp32).unwrap_err();
        assert!(e.field.starts_with("model.layers[0] (lstm"), "{e}");
        assert!(e.allowed.contains(allowed), "{e}");
    }
}

#[test]
fn kept_bytes_grow_with_the_steps_and_the_hidden_size() {
    let saved = |steps: u64, hidden: u64| {
        let s = spec(vec![steps, 4], rnn(hidden, 1));
        analyze(&s, 8, Precision::Fp32).unwrap().layers[0].saved_bytes
    };
    // Seven hidden-sized fp32 tensors per step and sample, plus the input copy.
    let per_step = |hidden: f64| 8.0 * 7.0 * hidden * 4.0 + 8.0 * 4.0 * 4.0;
    assert_eq!(saved(20, 32) - saved(10, 32), 10.0 * per_step(32.0));
    assert!(saved(10, 64) > saved(10, 32));
}

/// On the GPU a GRU keeps cuDNN's reserve space in place of the native cells' 7 tensors
/// per step, and each cuDNN call takes a workspace: both multiples of the layer's step
/// unit (`perf.cudnn.rnn_*`), which grow its peaks with the batch; other models are not
/// touched by them.
#[test]
fn cudnns_reserve_and_workspaces_grow_a_grus_peaks_by_its_step_unit() {
    let unit = |steps: u64, hidden: u64, p: Precision| {
        let s = spec(vec![steps, 1], rnn(hidden, 2));
        analyze(&s, 8, p).unwrap().layers[0].rnn_step_bytes
    };
    // Two layers, one direction: 2 x steps x hidden values per sample, batch 8.
    assert_eq!(
        unit(200, 64, Precision::Fp32),
        8.0 * 2.0 * 200.0 * 64.0 * 4.0
    );
    assert_eq!(
        unit(200, 64, Precision::AmpBf16),
        8.0 * 2.0 * 200.0 * 64.0 * 2.0
    );
    let peaks = |id: &str, batch: u32, workspace: f64| {
        let mut s = hsi_gpu_core::Scenario {
            model: hsi_gpu_core::scenario::ModelChoice::Preset {
                id: id.into(),
                width: None,
                size: None,
            },
            batch_per_gpu: batch,
            ..Default::default()
        };
        s.perf.cudnn.rnn_workspace_per_step = workspace;
        let m = hsi_gpu_core::estimate(&s).unwrap().memory;
        (m.allocated_peak, m.reserved_peak)
    };
    let without = peaks("mou_rnn", 512, 0.0);
    let cudnn = peaks("mou_rnn", 512, 18.0);
    assert!(cudnn.0 > 1.5 * without.0, "{cudnn:?} against {without:?}");
    assert!(cudnn.1 > 1.5 * without.1, "{cudnn:?} against {without:?}");
    // At 4x the batch the added bytes are about 4x (fixed terms aside).
    let added = |batch| peaks("mou_rnn", batch, 18.0).0 - peaks("mou_rnn", batch, 0.0).0;
    let ratio = added(512) / added(128);
    assert!((3.6..=4.4).contains(&ratio), "{ratio}");
    assert_eq!(peaks("hybridsn", 64, 0.0), peaks("hybridsn", 64, 50.0));
}

#[test]
fn a_recurrent_model_is_warned_that_cudnns_reserve_is_fitted_on_one_gru() {
    use hsi_gpu_core::report::Warning;
    let warned = |id: &str| {
        let s = hsi_gpu_core::Scenario {
            model: hsi_gpu_core::scenario::ModelChoice::Preset {
                id: id.into(),
                width: None,
                size: None,
            },
            ..Default::default()
        };
        let report = hsi_gpu_core::estimate(&s).unwrap();
        report.warnings.contains(&Warning::RecurrentReserve)
    };
    assert!(warned("mou_rnn"));
    assert!(!warned("hybridsn"));
}

/// PyTorch runs a recurrence of at most 192 hidden units (forward) or 128 (backward) as
/// one persistent cuDNN kernel (`use_rnn_persist_small_h`): a few kernels per pass, and
/// steps one after another whose time grows with the batch once the hidden-state product
/// outweighs a step's least time; wider layers launch a GEMM and a gate kernel per step.
#[test]
fn a_narrow_recurrence_runs_as_one_persistent_kernel_whose_steps_grow_with_the_batch() {
    use hsi_gpu_core::assumptions::PerfAssumptions;
    use hsi_gpu_core::device::{device_layer, Maths};
    let gpu = hsi_gpu_core::gpu::gpu_by_id("h200_sxm").unwrap();
    let layer = |hidden: u64, batch: u64| {
        let s = spec(vec![200, 1], rnn(hidden, 2));
        analyze(&s, batch, Precision::Fp32)
            .unwrap()
            .layers
            .remove(0)
    };
    // Two layers of 200 steps, one after another, where the pass is persistent.
    let persistent = |hidden| layer(hidden, 64).persistent_steps;
    assert_eq!(persistent(64), [400.0, 400.0]);
    assert_eq!(persistent(160), [400.0, 0.0]);
    assert_eq!(persistent(256), [0.0, 0.0]);
    // Two layers: the input projection and the persistent kernel each forward; the
    // standard algorithm's 1 + 2 x 200 per layer in a backward of twice as many.
    let narrow = layer(64, 64);
    assert_eq!((narrow.kernels_fwd, narrow.kernels_bwd), (4, 8));
    let wide = layer(160, 64);
    assert_eq!((wide.kernels_fwd, wide.kernels_bwd), (4, 2 * 2 * 401));
    // An LSTM: 4 gates.
    assert_eq!(narrow.step_flops, 64.0 * 2.0 * 4.0 * 64.0 * 64.0);

    let a = PerfAssumptions::default();
    let time = |l: &hsi_gpu_core::analysis::LayerReport| {
        let d = device_layer(l, Maths::fp32(), gpu, &a);
        (d.forward.time_s, d.backward.time_s)
    };
    // At batch 8 every step takes its least time; at 512 the product sets it, 8x that
    // of batch 64.
    let steps = 400.0 * a.kernel_launch_s;
    assert!((time(&layer(64, 8)).0 - steps).abs() < 4.0 * a.kernel_launch_s + 1e-9);
    let (small, large) = (time(&layer(64, 64)), time(&layer(64, 512)));
    assert!(
        large.0 > 6.0 * small.0 && large.1 > 6.0 * small.1,
        "{small:?} {large:?}"
    );
    // The wide layer's standard backward is launch-bound: flat in the batch.
    let (wide_small, wide_large) = (time(&layer(160, 64)), time(&layer(160, 512)));
    assert_eq!(wide_small.1, wide_large.1);
}

/// PyTorch's `get_parameters` calls `cudnnGetRNNWeightParams` 100 times for every gate's
/// input-side and hidden-side matrix and bias of every layer and direction: in backward
/// where the weights train, and in forward under autocast, which casts the weights into a
/// new flat buffer each step. Their host time (`perf.host.rnn_weight_query_s`) adds to
/// the step's.
#[test]
fn cudnns_weight_queries_follow_the_gates_layers_directions_and_autocast() {
    let queries = |op: Op, p: Precision| {
        analyze(&spec(vec![200, 1], op), 64, p).unwrap().layers[0].weight_queries
    };
    let gru = Op::Rnn {
        cell: RnnCell::Gru,
        hidden: 64,
        layers: 1,
        bidirectional: false,
        bias: true,
        batch_first: true,
    };
    assert_eq!(queries(gru.clone(), Precision::Fp32), [0.0, 1200.0]);
    assert_eq!(queries(gru.clone(), Precision::AmpBf16), [1200.0, 1200.0]);
    // Weights already 16-bit, no autocast: nothing cast in forward.
    assert_eq!(queries(gru, Precision::Bf16), [0.0, 1200.0]);
    let lstm = Op::Rnn {
        cell: RnnCell::Lstm,
        hidden: 64,
        layers: 2,
        bidirectional: true,
        bias: false,
        batch_first: true,
    };
    // 4 gates x 2 layers x 2 directions; the bias queries run without biases too.
    assert_eq!(
        queries(lstm, Precision::Fp32),
        [0.0, 400.0 * 4.0 * 2.0 * 2.0]
    );

    let host = |query_s: f64| {
        let mut s = hsi_gpu_core::Scenario {
            model: hsi_gpu_core::scenario::ModelChoice::Preset {
                id: "mou_rnn".into(),
                width: None,
                size: None,
            },
            precision: Precision::AmpBf16,
            ..Default::default()
        };
        s.perf.host.rnn_weight_query_s = query_s;
        hsi_gpu_core::estimate(&s).unwrap().perf.time.host_s
    };
    // 2 passes x 1,200 queries of 1 us on a workstation core (x1; a little more with
    // the input pipeline's thread busy beside it).
    let added = (host(1e-6) - host(0.0)) / 2400e-6;
    assert!((1.0..1.02).contains(&added), "{added}");
}

/// Under autocast PyTorch zeroes a 16-bit flat buffer, copies every weight and bias into
/// it and casts the input and h0 before each cuDNN call (aten/src/ATen/cudnn/
/// AutocastRNN.cpp): three ops and one per weight tensor more in forward, the copies'
/// backward in backward; in FP32, or with weights already 16-bit, none.
#[test]
fn autocast_adds_the_flat_buffer_copies_and_casts_to_the_hosts_ops() {
    let ops = |op: Op, p: Precision| {
        let layer = &analyze(&spec(vec![200, 1], op), 64, p).unwrap().layers[0];
        [layer.host_ops_fwd(), layer.host_ops_bwd()]
    };
    let gru = |layers, bidirectional, bias| Op::Rnn {
        cell: RnnCell::Gru,
        hidden: 64,
        layers,
        bidirectional,
        bias,
        batch_first: true,
    };
    let plain = ops(gru(1, false, true), Precision::Fp32);
    assert_eq!(ops(gru(1, false, true), Precision::Bf16), plain);
    let added = |op: Op| {
        let [f, b] = ops(op.clone(), Precision::AmpBf16);
        let [f0, b0] = ops(op, Precision::Fp32);
        [f - f0, b - b0]
    };
    // W_ih, W_hh and their biases per layer and direction.
    assert_eq!(added(gru(1, false, true)), [3 + 4, 4]);
    assert_eq!(added(gru(2, true, false)), [3 + 2 * 2 * 2, 2 * 2 * 2]);
}
