//! The layer-list JSON: every op reads back what it writes, optional fields take their
//! documented defaults, and bad layers are refused naming the field and what is allowed.

use hsi_gpu_core::graph::{ops, Activation, Layer, ModelSpec, Op, RnnCell, UpsampleMode};

fn layer(op: Op) -> Layer {
    Layer {
        name: Some("x".into()),
        from: vec!["input".into()],
        shares: None,
        op,
    }
}

fn every_op() -> Vec<Op> {
    vec![
        Op::Conv {
            dims: 3,
            out_channels: 8,
            kernel: vec![7, 3, 3],
            stride: vec![1, 2, 2],
            padding: vec![0, 1, 1],
            dilation: vec![1],
            groups: 2,
            bias: false,
        },
        Op::Linear {
            out_features: 16,
            bias: false,
        },
        Op::BatchNorm,
        ops::layer_norm(),
        Op::GroupNorm {
            groups: 4,
            weight: true,
            bias: true,
        },
        Op::GroupNorm {
            groups: 1,
            weight: true,
            bias: false,
        },
        Op::Dropout { p: 0.4 },
        Op::MaxPool {
            dims: 2,
            kernel: vec![2],
            stride: vec![2],
            padding: vec![],
            ceil_mode: true,
        },
        Op::AvgPool {
            dims: 1,
            kernel: vec![3],
            stride: vec![],
            padding: vec![1],
            ceil_mode: false,
        },
        Op::AdaptiveAvgPool {
            dims: 2,
            output: vec![1, 1],
        },
        Op::Upsample {
            dims: 2,
            scale: 2,
            mode: UpsampleMode::Nearest,
        },
        Op::Upsample {
            dims: 1,
            scale: 4,
            mode: UpsampleMode::Linear,
        },
        Op::Flatten,
        Op::Reshape { shape: vec![4, 25] },
        Op::Permute { order: vec![1, 0] },
        Op::Add,
        Op::Mul,
        Op::Concat { axis: 0 },
        Op::Matmul,
        Op::Attention {
            heads: 4,
            head_dim: Some(16),
            qkv_bias: true,
            extra_params: 0,
        },
        Op::Attention {
            heads: 2,
            head_dim: None,
            qkv_bias: false,
            extra_params: 507,
        },
        Op::ClassToken,
        Op::PositionEmbedding,
        Op::TakeToken { index: 0 },
        Op::Scale {
            shape: vec![8, 1, 1],
            bias: false,
        },
        Op::Scale {
            shape: vec![16],
            bias: true,
        },
        Op::DropPath,
        Op::Rnn {
            cell: RnnCell::Lstm,
            hidden: 64,
            layers: 1,
            bidirectional: false,
            bias: true,
            batch_first: true,
        },
        Op::Rnn {
            cell: RnnCell::Gru,
            hidden: 8,
            layers: 3,
            bidirectional: true,
            bias: false,
            batch_first: false,
        },
        Op::Slice {
            axis: 0,
            start: 2,
            end: 5,
            step: 1,
        },
        Op::Slice {
            axis: 1,
            start: 1,
            end: 9,
            step: 2,
        },
    ]
    .into_iter()
    .chain(Activation::ALL.map(|kind| Op::Act {
        kind,
        inplace: false,
    }))
    .chain([Op::Act {
        kind: Activation::LeakyRelu,
        inplace: true,
    }])
    .collect()
}

#[test]
fn every_op_reads_back_what_it_writes() {
    let spec = ModelSpec {
        name: "all".into(),
        input: vec![1, 30, 25, 25],
        layers: every_op().into_iter().map(layer).collect(),
    };
    let text = serde_json::to_string(&spec).unwrap();
    let back: ModelSpec = serde_json::from_str(&text).unwrap();
    assert_eq!(back, spec);
    // Each op's JSON name is its tag, and activations write their kind.
    assert!(text.contains(r#""op":"adaptive_avg_pool""#));
    assert!(text.contains(r#""kind":"leaky_relu""#));
}

#[test]
fn optional_fields_take_the_documented_defaults() {
    let read = |text: &str| serde_json::from_str::<Layer>(text).unwrap().op;
    assert_eq!(
        read(r#"{"op": "conv", "dims": 2, "out_channels": 4, "kernel": [3]}"#),
        Op::Conv {
            dims: 2,
            out_channels: 4,
            kernel: vec![3],
            stride: vec![],
            padding: vec![],
            dilation: vec![],
            groups: 1,
            bias: true,
        }
    );
    assert_eq!(
        read(r#"{"op": "linear", "out_features": 3}"#),
        Op::Linear {
            out_features: 3,
            bias: true
        }
    );
    assert_eq!(
        read(r#"{"op": "attention", "heads": 2, "head_dim": null}"#),
        Op::Attention {
            heads: 2,
            head_dim: None,
            qkv_bias: false,
            extra_params: 0
        }
    );
    assert_eq!(
        read(r#"{"op": "max_pool", "dims": 2, "kernel": [2]}"#),
        Op::MaxPool {
            dims: 2,
            kernel: vec![2],
            stride: vec![],
            padding: vec![],
            ceil_mode: false
        }
    );
    assert_eq!(
        read(r#"{"op": "upsample", "dims": 2, "scale": 2}"#),
        Op::Upsample {
            dims: 2,
            scale: 2,
            mode: UpsampleMode::Nearest
        }
    );
    assert_eq!(
        read(r#"{"op": "scale", "shape": [4]}"#),
        Op::Scale {
            shape: vec![4],
            bias: false
        }
    );
    let plain: Layer = serde_json::from_str(r#"{"op": "flatten"}"#).unwrap();
    assert_eq!((plain.name, plain.from), (None, vec![]));
}

#[test]
fn bad_layers_name_the_field_and_what_is_allowed() {
    let cases = [
        (
            r#"{"op": "conv2d", "out_channels": 4}"#,
            "op",
            "one of conv,",
        ),
        (r#"{"out_channels": 4}"#, "op", "take_token"),
        (
            r#"{"op": "conv", "dims": 2, "kernel": [3]}"#,
            "out_channels",
            "required",
        ),
        (
            r#"{"op": "conv", "dims": 2, "out_channels": 4, "kernel": [3], "strides": [2]}"#,
            "strides",
            "stride",
        ),
        (
            r#"{"op": "conv", "dims": 2, "out_channels": 4, "kernel": "3"}"#,
            "kernel",
            "list of whole numbers",
        ),
        (
            r#"{"op": "linear", "out_features": -3}"#,
            "out_features",
            "a whole number, 0 or more",
        ),
        (
            r#"{"op": "conv", "dims": 2, "out_channels": -32, "kernel": [3]}"#,
            "out_channels",
            "a whole number, 0 or more",
        ),
        (r#"{"op": "act", "kind": "swish"}"#, "kind", "silu"),
        (r#"{"op": "dropout", "p": "0.5"}"#, "p", "a number"),
        (r#"{"op": "add", "from": "a"}"#, "from", "list of strings"),
        (r#"["op", "add"]"#, "(layer)", "JSON object"),
    ];
    for (text, field, allowed) in cases {
        let error = serde_json::from_str::<Layer>(text).unwrap_err().to_string();
        assert!(error.starts_with(&format!("{field}: ")), "{text}: {error}");
        assert!(error.contains(allowed), "{text}: {error}");
    }
}
