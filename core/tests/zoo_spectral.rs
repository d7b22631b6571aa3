//! The presets the article's model gaps asked for (mou_rnn, unmixing_ae, segformer):
//! parameter counts in closed form from the papers' layer sizes, output shapes and
//! option errors. FLOPs and saved bytes are checked against PyTorch in
//! `pytorch_fixtures.rs`.

use hsi_gpu_core::analysis::analyze;
use hsi_gpu_core::scenario::{Precision, VitSize};
use hsi_gpu_core::zoo::{zoo_entry, ZooOptions};

fn analysed(id: &str, o: &ZooOptions) -> hsi_gpu_core::analysis::Analysis {
    let spec = (zoo_entry(id).unwrap().build)(o).unwrap();
    analyze(&spec, 2, Precision::Fp32).unwrap()
}

#[test]
fn the_gru_rnn_has_deephyperx_mouetal_parameters() {
    for (bands, classes, units) in [(200u32, 16u32, 64u64), (103, 9, 64), (30, 6, 16)] {
        let o = ZooOptions {
            width: (units != 64).then_some(units as u32),
            ..ZooOptions::new(bands, 1, classes)
        };
        let (b, c) = (u64::from(bands), u64::from(classes));
        // GRU(1, units): 3 gates x (input + hidden + 2 biases); BatchNorm1d(units x B);
        // Linear(units x B, C).
        let gru = 3 * units * (1 + units + 2);
        let expected = gru + 2 * units * b + units * b * c + c;
        let a = analysed("mou_rnn", &o);
        assert_eq!(a.params, expected, "B={bands}");
        assert_eq!(a.output_shape, vec![c]);
    }
    assert_eq!(
        analysed("mou_rnn", &ZooOptions::new(200, 1, 16)).params,
        243_280
    );
}

#[test]
fn the_unmixing_autoencoder_reconstructs_the_spectrum() {
    for (bands, r) in [(198u32, 4u64), (156, 3), (162, 6)] {
        let o = ZooOptions {
            width: (r != 4).then_some(r as u32),
            ..ZooOptions::new(bands, 1, 16)
        };
        let b = u64::from(bands);
        // Bias-free B -> 9R -> 6R -> 3R -> R, BatchNorm1d(R), bias-free R -> B.
        let expected = b * 9 * r + 9 * r * 6 * r + 6 * r * 3 * r + 3 * r * r + 2 * r + r * b;
        let a = analysed("unmixing_ae", &o);
        assert_eq!(a.params, expected, "B={bands} R={r}");
        assert_eq!(a.output_shape, vec![b], "the output is the spectrum");
    }
}

#[test]
fn spectral_presets_refuse_a_size_and_an_impossible_width() {
    for id in ["mou_rnn", "unmixing_ae", "segformer"] {
        let build = zoo_entry(id).unwrap().build;
        let sized = ZooOptions {
            size: Some(VitSize::Base),
            ..ZooOptions::new(100, 32, 9)
        };
        assert_eq!(build(&sized).unwrap_err().field, "model.size", "{id}");
        let wide = ZooOptions {
            width: Some(0),
            ..ZooOptions::new(100, 32, 9)
        };
        assert_eq!(build(&wide).unwrap_err().field, "model.width", "{id}");
    }
}

#[test]
fn segformer_b0_has_the_reference_size_and_segments_the_tile() {
    // MiT-B0 + the all-MLP head at 3 channels and ADE20K's 150 classes: the paper's
    // 3.8 M (tools/torch_zoo/segformer.py counts the same in PyTorch).
    assert_eq!(
        analysed("segformer", &ZooOptions::new(3, 64, 150)).params,
        3_752_694
    );
    let a = analysed("segformer", &ZooOptions::new(30, 96, 16));
    assert_eq!(a.output_shape, vec![16, 96, 96]);
    // Only the stem depends on the bands: a 7 x 7 kernel per band and output channel.
    let more = analysed("segformer", &ZooOptions::new(31, 96, 16));
    assert_eq!(more.params - a.params, 7 * 7 * 32);
    for patch in [48, 100, 0] {
        let e =
            (zoo_entry("segformer").unwrap().build)(&ZooOptions::new(30, patch, 16)).unwrap_err();
        assert_eq!(e.field, "patch", "{patch}");
        assert!(e.allowed.contains("multiple of 32"), "{e}");
    }
}

#[test]
fn a_frozen_recurrent_layer_that_no_gradient_reaches_keeps_nothing() {
    use hsi_gpu_core::analysis::{analyze_with, Training};
    use hsi_gpu_core::scenario::FineTune;
    let spec = (zoo_entry("mou_rnn").unwrap().build)(&ZooOptions::new(200, 1, 16)).unwrap();
    let full = analyze_with(&spec, 4, &Training::plain(Precision::Fp32)).unwrap();
    let rnn = |a: &hsi_gpu_core::analysis::Analysis| {
        a.layers.iter().find(|l| l.kind == "gru").unwrap().clone()
    };
    assert!(rnn(&full).saved_bytes > 0.0 && rnn(&full).bwd_flops > 0.0);
    let head_only = Training {
        finetune: FineTune::Frozen {
            trainable: vec!["head".into()],
        },
        ..Training::plain(Precision::Fp32)
    };
    let frozen = analyze_with(&spec, 4, &head_only).unwrap();
    assert_eq!(rnn(&frozen).saved_bytes, 0.0);
    assert_eq!(rnn(&frozen).bwd_flops, 0.0);
    assert_eq!(rnn(&frozen).fwd_flops, rnn(&full).fwd_flops);
    assert!(frozen.trainable_params < full.trainable_params);
}
