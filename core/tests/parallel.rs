//! Tensor and pipeline parallelism (`parallel`): what each GPU holds, the links the
//! tensor-parallel group runs over, the 1F1B schedule, the layout with data parallelism,
//! and the errors for layouts that cannot apply.

use hsi_gpu_core::analysis::{analyze, Analysis};
use hsi_gpu_core::compare::{compare, CompareOption, Comparison};
use hsi_gpu_core::graph::{ops, ModelBuilder};
use hsi_gpu_core::memory::breakdown;
use hsi_gpu_core::parallel::stages::{balance, bubble_fraction, flush_s, stage_analysis};
use hsi_gpu_core::scenario::{
    Interconnect, ModelChoice, ParallelMode, Precision, Scenario, VitSize,
};
use hsi_gpu_core::whatifs::estimate_all;
use hsi_gpu_core::{build_model, estimate, levers::Lever, FieldError, Report};

/// A ViT of `size` on 224 px tiles of 32 bands (785 tokens) in bf16 autocast.
fn vit(size: VitSize, cards: u32) -> Scenario {
    Scenario {
        model: ModelChoice::Preset {
            id: "vit".into(),
            width: None,
            size: Some(size),
        },
        bands: 32,
        patch: 224,
        batch_per_gpu: 8,
        precision: Precision::AmpBf16,
        cards,
        ..Scenario::default()
    }
}

fn run(s: &Scenario) -> Report {
    estimate(s).unwrap_or_else(|e| panic!("{e:?}"))
}

fn errors(s: &Scenario) -> Vec<FieldError> {
    estimate(s).expect_err("an error")
}

#[test]
fn tensor_parallel_4_keeps_about_a_quarter_of_a_vit_h_per_gpu() {
    let whole = run(&vit(VitSize::Huge, 4));
    let split = run(&Scenario {
        tensor_parallel: 4,
        ..vit(VitSize::Huge, 4)
    });
    let share = |f: fn(&Report) -> f64| f(&split) / f(&whole);
    // The blocks split four ways; the patch embedding, norms, tokens and biases of
    // row-split layers stay whole: a little over a quarter.
    for (what, s) in [
        ("weights", share(|r| r.memory.weights)),
        ("gradients", share(|r| r.memory.gradients)),
        ("optimizer states", share(|r| r.memory.optimizer_states)),
        ("parameters", share(|r| r.parallel.params_per_gpu as f64)),
    ] {
        assert!((0.25..0.27).contains(&s), "{what}: {s}");
    }
    assert_eq!(split.params, whole.params, "the model keeps its size");
    assert_eq!(
        split.parallel.split_layers,
        3 * 32 + 1,
        "qkv/proj, fc1, fc2, logits"
    );
    // Attention and MLP activations shrink, the replicated norms' inputs do not.
    let act = share(|r| r.memory.activations);
    assert!((0.25..0.75).contains(&act), "activations {act}");
    assert!(split.max_batch > 2 * whole.max_batch);
}

#[test]
fn two_all_reduces_each_way_per_block_of_the_blocks_activations() {
    let s = Scenario {
        tensor_parallel: 2,
        cards: 2,
        ..vit(VitSize::Base, 2)
    };
    let r = run(&s);
    // ViT-B at 224 px: 785 tokens x 768; forward the attention's and fc2's bf16 outputs,
    // backward the gradients of their fp32 LayerNorm inputs (autocast runs norms in
    // fp32); the logits' three fp32 values per sample and the gradient of the head's
    // input (the final norm's class token, fp32).
    let rows = 8.0 * 785.0 * 768.0;
    let per_block = 2.0 * rows * 2.0 + 2.0 * rows * 4.0;
    let logits = 3.0 * 4.0 * 8.0 + 8.0 * 768.0 * 4.0;
    let expected = 12.0 * per_block + logits;
    let got = r.parallel.tensor_allreduce_bytes;
    assert!((got / expected - 1.0).abs() < 1e-9, "{got} vs {expected}");
    assert!(r.perf.time.tensor_allreduce_s > 0.0);
    assert_eq!(
        run(&vit(VitSize::Base, 2)).parallel.tensor_allreduce_bytes,
        0.0
    );
}

#[test]
fn tensor_parallel_over_an_nvlink_bridge_beats_pcie() {
    let on = |gpu: &str, interconnect| {
        run(&Scenario {
            gpu: gpu.into(),
            interconnect,
            tensor_parallel: 2,
            ..vit(VitSize::Huge, 2)
        })
    };
    let bridge = on("rtx_a5500", Interconnect::NvlinkBridge);
    let pcie = on("rtx_a5500", Interconnect::Pcie);
    assert!(bridge.parallel.tensor_bus_bytes_per_s > pcie.parallel.tensor_bus_bytes_per_s);
    assert!(bridge.perf.time.tensor_allreduce_s < pcie.perf.time.tensor_allreduce_s);
    assert!(
        bridge.perf.time.samples_per_s > 1.05 * pcie.perf.time.samples_per_s,
        "{} vs {}",
        bridge.perf.time.samples_per_s,
        pcie.perf.time.samples_per_s
    );
    // A GeForce pair without the bridge goes through host memory: slower than the
    // workstation card's peer-to-peer PCIe.
    let geforce = on("rtx_3090", Interconnect::Pcie);
    let ratio = geforce.parallel.tensor_bus_bytes_per_s / pcie.parallel.tensor_bus_bytes_per_s;
    let staged = Scenario::default().perf.scaling.host_staged_factor;
    assert!((ratio - staged).abs() < 1e-9, "{ratio}");
    // Beyond the bridged pair the ring crosses PCIe.
    let four = run(&Scenario {
        interconnect: Interconnect::NvlinkBridge,
        tensor_parallel: 4,
        ..vit(VitSize::Huge, 4)
    });
    let four_pcie = run(&Scenario {
        tensor_parallel: 4,
        ..vit(VitSize::Huge, 4)
    });
    assert_eq!(
        four.parallel.tensor_bus_bytes_per_s,
        four_pcie.parallel.tensor_bus_bytes_per_s
    );
}

/// The all-reduce share has one meaning on every card count: data-parallel (exposed) and
/// tensor-parallel all-reduces, whether or not the count is the scenario's.
#[test]
fn every_card_count_counts_the_tensor_parallel_all_reduces_in_its_share() {
    let with_cards = |cards| {
        run(&Scenario {
            tensor_parallel: 2,
            ..vit(VitSize::Base, cards)
        })
    };
    let (two, four) = (with_cards(2), with_cards(4));
    let share_at = |r: &Report, cards| {
        r.perf
            .scaling
            .scenario_point(cards, 1)
            .unwrap()
            .allreduce_share
    };
    for (r, cards) in [(&two, 2), (&four, 4)] {
        assert_eq!(r.perf.time.allreduce_share, share_at(r, cards));
    }
    assert_eq!(share_at(&two, 4), share_at(&four, 4));
    // Two cards are one tensor-parallel pair: no data-parallel ring, still all-reduces.
    let tensor_share = two.parallel.tensor_allreduce_s / two.perf.time.step_s;
    assert!((share_at(&two, 2) - tensor_share).abs() < 1e-9 && tensor_share > 0.05);
}

#[test]
fn the_scaling_draws_the_other_links_only_where_the_model_is_whole_on_each_card() {
    let links = |tensor_parallel| {
        let r = run(&Scenario {
            gpu: "rtx_a5500".into(),
            interconnect: Interconnect::NvlinkBridge,
            tensor_parallel,
            ..vit(VitSize::Base, 2)
        });
        let curves = r.perf.scaling.ddp.iter().map(|c| c.interconnect);
        curves.collect::<Vec<_>>()
    };
    assert_eq!(links(1), [Interconnect::NvlinkBridge, Interconnect::Pcie]);
    // Split over the pair, PCIe would carry the tensor-parallel all-reduces too: a curve
    // of data parallelism over the bridge's split would misstate it.
    assert_eq!(links(2), [Interconnect::NvlinkBridge]);
}

#[test]
fn the_interconnect_lever_pays_for_tensor_parallelism() {
    let s = Scenario {
        tensor_parallel: 2,
        ..vit(VitSize::Huge, 2)
    };
    let r = estimate_all(&s).unwrap();
    let lever = r
        .levers
        .iter()
        .find(|l| l.lever == Lever::Interconnect)
        .expect("the bridge lever");
    let expected = run(&Scenario {
        interconnect: Interconnect::NvlinkBridge,
        ..s.clone()
    })
    .parallel
    .tensor_bus_bytes_per_s
        / r.parallel.tensor_bus_bytes_per_s;
    assert!((lever.factor - expected).abs() < 1e-9);
    assert!(lever.speedup.unwrap() > 1.05);
}

#[test]
fn pipeline_of_4_stages_and_8_micro_batches_has_a_bubble_of_3_in_11() {
    let s = Scenario {
        pipeline_parallel: 4,
        micro_batches: 8,
        ..vit(VitSize::Large, 4)
    };
    let r = run(&s);
    let p = &r.parallel;
    assert_eq!(p.bubble_fraction, 3.0 / 11.0);
    assert_eq!(bubble_fraction(4, 8), 3.0 / 11.0);
    assert_eq!(p.stages.len(), 4);
    let in_flight: Vec<u32> = p.stages.iter().map(|st| st.in_flight).collect();
    assert_eq!(in_flight, [4, 3, 2, 1]);
    let layers: u32 = p.stages.iter().map(|st| st.layers).sum();
    assert_eq!(layers as usize, r.layers.len());
    let params: u64 = p.stages.iter().map(|st| st.params).sum();
    assert_eq!(params, r.params);
    // Balanced by time: ViT-L's 24 equal blocks split evenly.
    let times: Vec<f64> = p
        .stages
        .iter()
        .map(|st| st.forward_s + st.backward_s)
        .collect();
    let (lo, hi) = times
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), t| (lo.min(*t), hi.max(*t)));
    assert!(hi / lo < 1.15, "{times:?}");
    // The first stage keeps four micro-batches in flight, the last one.
    assert!(p.stages[0].memory.activations > 2.0 * p.stages[3].memory.activations);
    assert_eq!(
        r.memory.total,
        p.stages
            .iter()
            .map(|st| st.memory.total)
            .fold(0.0, f64::max)
    );
    // Stages hold whole blocks and send the residual stream between them: 785 x 1024
    // values per sample, fp32 under autocast.
    assert_eq!(p.stages[0].send_bytes, 8.0 * 785.0 * 1024.0 * 4.0);
    assert!(
        p.stages[1].first_layer.ends_with(".norm1"),
        "{}",
        p.stages[1].first_layer
    );
    assert_eq!(p.stages[3].send_bytes, 0.0);
    // One step of 8 micro-batches: at least (m + p - 1) of the slowest stage's time
    // over m (the bubble), on the slowest stage's host.
    let t = &r.perf.time;
    assert_eq!(t.accum_steps, 8);
    assert!(t.micro_step_s * 8.0 >= 11.0 / 8.0 * 8.0 * lo);
    // More micro-batches amortise the bubble.
    let more = run(&Scenario {
        micro_batches: 32,
        ..s.clone()
    });
    assert!(more.perf.time.samples_per_s > r.perf.time.samples_per_s);
}

#[test]
fn one_flush_is_the_fill_the_pace_of_the_slowest_stage_and_the_drain() {
    assert_eq!(flush_s(&[1.0, 1.0, 1.0, 1.0], 8), 11.0);
    assert_eq!(flush_s(&[1.0, 2.0], 3), 2.0 * 2.0 + 3.0);
    let times = [1.0, 1.0, 5.0, 1.0, 1.0, 1.0];
    let cut = balance(&times, 3);
    assert_eq!(cut, [0..2, 2..3, 3..6]);
    // Ties and layers without time still give every stage a layer.
    assert_eq!(balance(&[0.0; 5], 5).len(), 5);
    assert!(balance(&[0.0; 5], 5).iter().all(|r| !r.is_empty()));
}

/// Each zoo model at a small geometry, analysed at batch 4.
fn zoo_analyses() -> Vec<(Scenario, Analysis)> {
    [
        "hu1d",
        "hybridsn",
        "ssrn",
        "dbda",
        "ssftt",
        "spectralformer",
        "vit",
    ]
    .iter()
    .map(|id| {
        let s = Scenario {
            model: ModelChoice::Preset {
                id: (*id).into(),
                width: None,
                size: None,
            },
            patch: if *id == "vit" { 32 } else { 9 },
            ..Scenario::default()
        };
        let a = analyze(&build_model(&s).unwrap(), 4, Precision::Fp32).unwrap();
        (s, a)
    })
    .collect()
}

#[test]
fn one_stage_holding_every_layer_is_the_whole_model() {
    let gpu = hsi_gpu_core::gpu::gpu_by_id("rtx_a5500").unwrap();
    for (s, a) in zoo_analyses() {
        for checkpointing in [false, true] {
            let s = Scenario {
                checkpointing,
                ..s.clone()
            };
            let whole = breakdown(&a, &s, gpu);
            let one = breakdown(&stage_analysis(&a, 0..a.layers.len(), 1), &s, gpu);
            assert!(
                (one.total - whole.total).abs() < 1e-6,
                "{}",
                a.layers[0].name
            );
        }
    }
}

#[test]
fn tensor_data_and_pipeline_parallelism_share_the_cards() {
    let s = Scenario {
        interconnect: Interconnect::NvlinkBridge,
        tensor_parallel: 2,
        ..vit(VitSize::Large, 4)
    };
    let r = run(&s);
    assert_eq!(r.parallel.data_parallel, 2);
    let curve = &r.perf.scaling.ddp[0].points;
    let cards: Vec<u32> = curve.iter().map(|p| p.cards).collect();
    assert_eq!(cards, [1, 2, 4, 6, 8], "one card alone, then whole pairs");
    // The data-parallel ring runs between the pairs, over PCIe.
    let four = r.perf.scaling.chosen_point(4).unwrap();
    let pcie = run(&Scenario {
        interconnect: Interconnect::Pcie,
        tensor_parallel: 1,
        ..s.clone()
    });
    assert_eq!(
        four.bus_bytes_per_s,
        pcie.perf.scaling.chosen_point(4).unwrap().bus_bytes_per_s
    );
    assert_eq!(r.perf.time.step_s, four.step_s);
    // Each rank takes its share of the epoch.
    assert_eq!(
        r.perf.epoch.micro_steps_per_epoch,
        run(&Scenario {
            cards: 2,
            ..s.clone()
        })
        .perf
        .epoch
        .micro_steps_per_epoch
        .div_ceil(2)
    );
    // Two nodes of such boxes: four replicas.
    let nodes = run(&Scenario {
        nodes: 2,
        ..s.clone()
    });
    assert_eq!(nodes.parallel.data_parallel, 4);
    // Pipeline and tensor together: 2 x 2 on four cards, one replica.
    let both = run(&Scenario {
        pipeline_parallel: 2,
        micro_batches: 4,
        ..s.clone()
    });
    assert_eq!(both.parallel.data_parallel, 1);
    assert_eq!(both.parallel.stages.len(), 2);
    assert!(both.parallel.tensor_allreduce_s > 0.0);
}

#[test]
fn a_comparison_shows_tensor_parallelism_inside_bridged_pairs() {
    let option = |label: &str, interconnect| CompareOption {
        label: label.into(),
        scenario: Scenario {
            interconnect,
            tensor_parallel: 2,
            ..vit(VitSize::Huge, 4)
        },
    };
    let c = Comparison {
        options: vec![
            option(
                "4x RTX A5500: TP 2 inside bridged pairs x DP 2",
                Interconnect::NvlinkBridge,
            ),
            option("4x RTX A5500: TP 2 over PCIe x DP 2", Interconnect::Pcie),
        ],
        ..Comparison::default()
    };
    let report = compare(&c).unwrap();
    let results: Vec<_> = report
        .options
        .iter()
        .map(|o| o.result.clone().unwrap())
        .collect();
    for r in &results {
        assert_eq!((r.data_parallel, r.tensor_parallel, r.cards), (2, 2, 4));
    }
    assert!(results[0].samples_per_s > results[1].samples_per_s);
}

#[test]
fn layouts_that_cannot_apply_name_the_field_and_what_is_allowed() {
    let field = |s: &Scenario, name: &str| {
        errors(s)
            .into_iter()
            .find(|e| e.field == name)
            .unwrap_or_else(|| panic!("no error on {name}"))
    };
    // Not a divisor of the cards.
    let e = field(
        &Scenario {
            tensor_parallel: 3,
            ..vit(VitSize::Base, 4)
        },
        "tensor_parallel",
    );
    assert!(e.allowed.starts_with("1, 2, 4:"), "{}", e.allowed);
    assert!(e.allowed.contains("4 cards"), "{}", e.allowed);
    // Not a divisor of the heads: ViT-S has 6.
    let e = field(
        &Scenario {
            tensor_parallel: 4,
            ..vit(VitSize::Small, 4)
        },
        "tensor_parallel",
    );
    assert!(e.allowed.starts_with("1, 2:"), "{}", e.allowed);
    assert!(
        e.allowed.contains("heads of block0.attn (6)"),
        "{}",
        e.allowed
    );
    // Nothing to split: a 3-D CNN.
    let e = field(
        &Scenario {
            model: ModelChoice::Preset {
                id: "hamida3d".into(),
                width: None,
                size: None,
            },
            patch: 5,
            cards: 2,
            tensor_parallel: 2,
            ..Scenario::default()
        },
        "tensor_parallel",
    );
    assert!(e.allowed.starts_with("1 ("), "{}", e.allowed);
    assert!(e.allowed.contains("no attention or MLP"), "{}", e.allowed);
    // tensor x pipeline must divide the cards.
    let e = field(
        &Scenario {
            tensor_parallel: 2,
            pipeline_parallel: 3,
            ..vit(VitSize::Base, 4)
        },
        "pipeline_parallel",
    );
    assert!(e.allowed.starts_with("1, 2:"), "{}", e.allowed);
    // More stages than layers.
    let mut b = ModelBuilder::new("two layers", vec![16]);
    b.push(ops::linear(8)).push(ops::linear(4));
    let e = field(
        &Scenario {
            model: ModelChoice::Custom { spec: b.build() },
            cards: 4,
            pipeline_parallel: 4,
            ..Scenario::default()
        },
        "pipeline_parallel",
    );
    assert!(e.allowed.contains("at most 2"), "{}", e.allowed);
    // Micro-batches without a pipeline, and model parallelism for one-card runs.
    field(
        &Scenario {
            micro_batches: 4,
            ..vit(VitSize::Base, 1)
        },
        "micro_batches",
    );
    let mut separate = Scenario {
        tensor_parallel: 2,
        ..vit(VitSize::Base, 2)
    };
    separate.workload.mode = ParallelMode::ParallelExperiments;
    let e = field(&separate, "tensor_parallel");
    assert!(e.allowed.contains("parallel_experiments"));
    // Out of range: the scenario's own description.
    field(
        &Scenario {
            tensor_parallel: 9,
            ..vit(VitSize::Base, 8)
        },
        "tensor_parallel",
    );
}

#[test]
fn layouts_round_trip_through_json() {
    let s = Scenario {
        tensor_parallel: 2,
        pipeline_parallel: 2,
        micro_batches: 16,
        ..vit(VitSize::Large, 4)
    };
    let text = serde_json::to_string(&s).unwrap();
    let back = hsi_gpu_core::scenario::scenario_from_json(&text).unwrap();
    assert_eq!(back, s);
}

#[test]
fn the_all_reduce_share_counts_the_tensor_parallel_all_reduces() {
    // QA: ViT-L as TP 2 x PP 2 over 8 micro-batches on 4 cards has no data-parallel
    // all-reduce, but its tensor-parallel ones take a good part of the step.
    let s = Scenario {
        tensor_parallel: 2,
        pipeline_parallel: 2,
        micro_batches: 8,
        ..vit(VitSize::Large, 4)
    };
    let t = &estimate(&s).unwrap().perf.time;
    assert_eq!(t.allreduce_exposed_s, 0.0);
    let tensor_s = f64::from(t.accum_steps.max(1)) * t.tensor_allreduce_s;
    assert!(tensor_s > 0.0);
    assert!((t.allreduce_share - tensor_s / t.step_s).abs() < 1e-12);
    assert!(
        t.allreduce_share > 0.05 && t.allreduce_share < 1.0,
        "{}",
        t.allreduce_share
    );
    // Data-parallel only: the exposed all-reduce alone, as before.
    let ddp = estimate(&vit(VitSize::Base, 4)).unwrap().perf.time;
    assert_eq!(ddp.tensor_allreduce_s, 0.0);
    assert!((ddp.allreduce_share - ddp.allreduce_exposed_s / ddp.step_s).abs() < 1e-12);
}
