//! The JSON writer (`ToJson`, generated from the same descriptions as the reader): what it
//! writes reads back as the same value for every preset model (as a preset and as its
//! layer list), for every op and for a comparison; and it is what the goldens in
//! `fixtures/written/` hold (cut from what serde's derived writer wrote before this one
//! replaced it). Fields at their default are left out exactly where the format says so.

mod common;

use hsi_gpu_core::choices::VitSize;
use hsi_gpu_core::compare::decision::{DecisionInputs, Priority};
use hsi_gpu_core::compare::{CompareOption, Comparison};
use hsi_gpu_core::foundation::{FineTune, Mae};
use hsi_gpu_core::graph::{Layer, ModelSpec, Op, UpsampleMode};
use hsi_gpu_core::json::{read_document, ToJson};
use hsi_gpu_core::scenario::{scenario_from_value, ModelChoice, Scenario};
use hsi_gpu_core::zoo::{self, ZooOptions, ZOO};
use serde_json::{json, Value};

/// `s` written, read back unchanged, and written the same through serde.
fn written(s: &Scenario) -> Value {
    let v = s.to_json();
    assert_eq!(&scenario_from_value(&v).unwrap(), s, "{v:#}");
    assert_eq!(serde_json::to_value(s).unwrap(), v);
    v
}

/// What the goldens hold of a written Scenario: the model, the fine-tuning and the cards
/// (the assumption sections grow with the estimator; that each of their fields reads back
/// is checked here and in `scenario_json.rs`).
fn model_part(s: &Value) -> Value {
    json!({"model": s["model"], "finetune": s["finetune"], "cards": s["cards"]})
}

/// `core/tests/fixtures/every_op.json`'s layer list (every op) as a custom model, with
/// the optional Scenario fields set and LoRA fine-tuning.
fn every_op_scenario() -> Scenario {
    let fixture: Value = common::read_fixture("every_op.json");
    let spec: ModelSpec = serde_json::from_value(fixture["spec"].clone()).unwrap();
    let mut s = Scenario {
        model: ModelChoice::Custom { spec },
        finetune: FineTune::Lora {
            rank: 8,
            targets: vec!["qkv".into(), "fc1".into()],
        },
        ..Scenario::default()
    };
    s.pipeline.cores = Some(4);
    s.memory.cuda_context_bytes = Some(123);
    s.cost.card_price_usd = Some(999.5);
    s.perf.scaling.network_efficiency = Some(0.5);
    s
}

/// Two options (a ViT size with frozen layers, a HybridSN width) and decision inputs that
/// are not the defaults.
fn two_options() -> Comparison {
    let vit = Scenario {
        model: ModelChoice::Preset {
            id: "vit".into(),
            width: None,
            size: Some(VitSize::Base),
        },
        cards: 4,
        finetune: FineTune::Frozen {
            trainable: vec!["head".into()],
        },
        ..Scenario::default()
    };
    let hybridsn = Scenario {
        model: ModelChoice::Preset {
            id: "hybridsn".into(),
            width: Some(2),
            size: None,
        },
        ..Scenario::default()
    };
    Comparison {
        options: vec![
            CompareOption {
                label: "ViT-B, 4 cards".into(),
                scenario: vit,
            },
            CompareOption {
                label: "HybridSN x2".into(),
                scenario: hybridsn,
            },
        ],
        decision: DecisionInputs {
            team_size: 3,
            priority: Priority::SingleRun,
            budget_usd: Some(5e4),
            ops_hours_per_month: None,
            simplicity_margin: 0.1,
        },
    }
}

#[test]
fn every_preset_model_reads_back_what_it_writes() {
    for e in ZOO {
        let sizes = if e.id == "vit" {
            VitSize::ALL.map(Some).to_vec()
        } else {
            vec![None]
        };
        for size in sizes {
            let preset = Scenario {
                model: ModelChoice::Preset {
                    id: e.id.into(),
                    width: None,
                    size,
                },
                patch: e.default_patch,
                ..Scenario::default()
            };
            let v = written(&preset);
            assert_eq!(v["model"]["size"], json!(size.map(VitSize::id)), "{}", e.id);
            // The same model as its layer list: every layer the zoo builds.
            let o = ZooOptions {
                size,
                ..ZooOptions::new(preset.bands, e.default_patch, preset.classes)
            };
            let spec = zoo::build(e, &o, &Mae::default()).unwrap();
            let v = written(&Scenario {
                model: ModelChoice::Custom { spec },
                ..preset
            });
            assert_eq!(v["model"]["kind"], "custom", "{}", e.id);
        }
    }
}

#[test]
fn every_op_as_a_custom_model_is_written_as_the_golden() {
    let golden: Value = common::read_fixture("written/every_op_scenario.json");
    assert_eq!(model_part(&written(&every_op_scenario())), golden);
}

#[test]
fn a_comparison_reads_back_what_it_writes_and_is_written_as_the_golden() {
    let golden: Value = common::read_fixture("written/two_options.json");
    for c in [two_options(), Comparison::default()] {
        let v = c.to_json();
        assert_eq!(read_document::<Comparison>(&v, "(document)").unwrap(), c);
        assert_eq!(serde_json::to_value(&c).unwrap(), v);
    }
    let mut v = two_options().to_json();
    for option in v["options"].as_array_mut().unwrap() {
        option["scenario"] = model_part(&option["scenario"]);
    }
    assert_eq!(v, golden);
}

#[test]
fn fields_at_their_default_are_left_out_only_where_the_format_says() {
    let layer = |op| {
        Layer {
            name: None,
            from: vec![],
            shares: None,
            op,
        }
        .to_json()
    };
    // A layer's own fields and the marked op fields are left out at their default...
    let norm = |weight, bias| layer(Op::LayerNorm { weight, bias });
    assert_eq!(norm(true, true), json!({"op": "layer_norm"}));
    assert_eq!(
        norm(false, true),
        json!({"op": "layer_norm", "weight": false})
    );
    let attention = |head_dim, extra_params| {
        layer(Op::Attention {
            heads: 2,
            head_dim,
            qkv_bias: false,
            extra_params,
        })
    };
    assert_eq!(
        attention(None, 0),
        json!({"op": "attention", "heads": 2, "qkv_bias": false})
    );
    assert_eq!(
        attention(Some(8), 5),
        json!({"op": "attention", "heads": 2, "qkv_bias": false, "head_dim": 8,
               "extra_params": 5})
    );
    let upsample = |mode| {
        layer(Op::Upsample {
            dims: 2,
            scale: 2,
            mode,
        })
    };
    assert_eq!(upsample(UpsampleMode::Nearest).get("mode"), None);
    assert_eq!(upsample(UpsampleMode::Cubic)["mode"], "cubic");
    // ... the unmarked ones are written at their default too: a conv read without them
    // is written with them.
    let conv: Layer =
        serde_json::from_str(r#"{"op": "conv", "dims": 2, "out_channels": 4, "kernel": [3]}"#)
            .unwrap();
    assert_eq!(
        layer(conv.op),
        json!({"op": "conv", "dims": 2, "out_channels": 4, "kernel": [3], "stride": [],
               "padding": [], "dilation": [], "groups": 1, "bias": true})
    );
    let named = Layer {
        name: Some("a".into()),
        from: vec!["input".into()],
        shares: Some("b".into()),
        op: Op::Flatten,
    };
    assert_eq!(
        named.to_json(),
        json!({"op": "flatten", "name": "a", "from": ["input"], "shares": "b"})
    );
    // A preset's unset width and size are left out; unset Scenario options are null.
    let v = Scenario::default().to_json();
    assert_eq!(v["model"], json!({"kind": "preset", "id": "hybridsn"}));
    assert_eq!(v["pipeline"]["cores"], Value::Null);
    assert!(v["pipeline"].as_object().unwrap().contains_key("cores"));
    assert_eq!(v["finetune"], json!({"mode": "full"}));
}
