//! The performance model against a published benchmark: ResNet-50 v1.5 training
//! throughput on DGX A100 and DGX-1 (NVIDIA DeepLearningExamples; figures, batch sizes,
//! URL and date in fixtures/resnet50_dle_benchmarks.json). ResNet-50 goes in as a custom
//! layer list, the path a user's own model takes.
//!
//! Bound: every single-card and 8-card estimate within a factor of 2 of the measurement
//! (the model is a roofline with rough efficiency factors, not a profiler), the cards
//! ranked as measured at each precision, 8-card efficiency within 0.2 of the measured.

use hsi_gpu_core::gpu::gpu_by_id;
use hsi_gpu_core::graph::{ModelBuilder, Op};
use hsi_gpu_core::perf::{performance, PerfReport};
use hsi_gpu_core::scenario::{Interconnect, ModelChoice, Optimizer, Precision, Scenario};
use hsi_gpu_core::{analysis, build_model};
use serde::Deserialize;

/// Published throughput must be within this factor of the estimate, both ways.
const ERROR_FACTOR_BOUND: f64 = 2.0;
/// 8-card scaling efficiency must be within this of the measured one. The model only
/// knows the all-reduce, which NVLink hides almost entirely here; the measured losses
/// (3-16 %) come mostly from elsewhere (input pipeline, stragglers).
const SCALING_EFFICIENCY_BOUND: f64 = 0.2;

#[derive(Deserialize)]
struct Fixture {
    input: Vec<u64>,
    classes: u64,
    entries: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    system: String,
    gpu: String,
    precision: Precision,
    batch_per_gpu: u32,
    cards: u32,
    images_per_s: f64,
}

fn fixture() -> Fixture {
    let text = include_str!("fixtures/resnet50_dle_benchmarks.json");
    serde_json::from_str(text).expect("fixture JSON")
}

fn conv(out: u64, kernel: u64, stride: u64) -> Op {
    Op::Conv {
        dims: 2,
        out_channels: out,
        kernel: vec![kernel],
        stride: vec![stride],
        padding: vec![kernel / 2],
        dilation: vec![],
        groups: 1,
        bias: false,
    }
}

fn relu() -> Op {
    hsi_gpu_core::graph::ops::relu()
}

/// torchvision `resnet50` (v1.5: the stride sits on the 3x3 conv of a bottleneck).
fn resnet50(input: Vec<u64>, classes: u64) -> hsi_gpu_core::graph::ModelSpec {
    let mut b = ModelBuilder::new("ResNet-50 v1.5", input);
    b.push(conv(64, 7, 2)).push(Op::BatchNorm).push(relu());
    b.named(
        "stem",
        Op::MaxPool {
            dims: 2,
            kernel: vec![3],
            stride: vec![2],
            padding: vec![1],
        },
    );
    let mut prev = "stem".to_string();
    for (stage, (width, blocks)) in [(64u64, 3), (128, 4), (256, 6), (512, 3)]
        .into_iter()
        .enumerate()
    {
        for block in 0..blocks {
            let name = format!("s{stage}b{block}");
            let stride = if block == 0 && stage > 0 { 2 } else { 1 };
            b.push_from(&format!("{name}_c1"), &[&prev], conv(width, 1, 1));
            b.push(Op::BatchNorm).push(relu());
            b.push(conv(width, 3, stride))
                .push(Op::BatchNorm)
                .push(relu());
            b.push(conv(4 * width, 1, 1));
            b.named(&format!("{name}_main"), Op::BatchNorm);
            let shortcut = if block == 0 {
                b.push_from(
                    &format!("{name}_down"),
                    &[&prev],
                    conv(4 * width, 1, stride),
                );
                b.named(&format!("{name}_short"), Op::BatchNorm);
                format!("{name}_short")
            } else {
                prev.clone()
            };
            b.push_from(
                &format!("{name}_add"),
                &[&format!("{name}_main"), &shortcut],
                Op::Add,
            );
            b.named(&format!("{name}_out"), relu());
            prev = format!("{name}_out");
        }
    }
    b.push(Op::AdaptiveAvgPool {
        dims: 2,
        output: vec![1, 1],
    })
    .push(Op::Flatten)
    .push(Op::Linear {
        out_features: classes,
        bias: true,
    });
    b.build()
}

fn scenario(f: &Fixture, e: &Entry) -> Scenario {
    Scenario {
        model: ModelChoice::Custom {
            spec: resnet50(f.input.clone(), f.classes),
        },
        gpu: e.gpu.clone(),
        precision: e.precision,
        optimizer: Optimizer::SgdMomentum,
        batch_per_gpu: e.batch_per_gpu,
        cards: e.cards,
        interconnect: Interconnect::Nvswitch,
        ..Scenario::default()
    }
}

fn perf(s: &Scenario) -> (u64, PerfReport) {
    let spec = build_model(s).unwrap();
    let a = analysis::analyze(&spec, s.batch_per_gpu.into(), s.precision).unwrap();
    let gpu = gpu_by_id(&s.gpu).unwrap();
    (a.params, performance(&a.layers, a.params, s, gpu))
}

#[test]
fn resnet50_has_torchvisions_parameter_count() {
    let f = fixture();
    let (params, _) = perf(&scenario(&f, &f.entries[0]));
    // torchvision.models.resnet50(): 25,557,032 parameters.
    assert_eq!(params, 25_557_032);
}

#[test]
fn resnet50_throughput_against_published_benchmarks() {
    let f = fixture();
    let mut estimates = Vec::new();
    let mut worst: f64 = 1.0;
    for e in &f.entries {
        let (_, r) = perf(&scenario(&f, e));
        let estimate = r.time.samples_per_s;
        let ratio = estimate / e.images_per_s;
        worst = worst.max(ratio.max(1.0 / ratio));
        println!(
            "{:<24} {:>8} x{}: measured {:>6.0} img/s, estimated {:>6.0} img/s ({:+.0} %)",
            e.system,
            e.precision.id(),
            e.cards,
            e.images_per_s,
            estimate,
            (ratio - 1.0) * 100.0
        );
        estimates.push((e, estimate));
    }
    println!("worst error factor: {worst:.2} (bound {ERROR_FACTOR_BOUND})");
    assert!(worst <= ERROR_FACTOR_BOUND);

    // Ranking: at every precision class and card count, the card measured faster is
    // estimated faster.
    for (a, ea) in &estimates {
        for (b, eb) in &estimates {
            let same_class =
                (a.precision == Precision::AmpFp16) == (b.precision == Precision::AmpFp16);
            if same_class && a.cards == b.cards && a.images_per_s > b.images_per_s {
                assert!(
                    ea > eb,
                    "{} {:?} should beat {} {:?}",
                    a.gpu,
                    a.precision,
                    b.gpu,
                    b.precision
                );
            }
        }
    }

    // 8-card scaling efficiency against the measured one.
    for pair in estimates.chunks(2) {
        let [(one, e1), (eight, e8)] = pair else {
            panic!("entries come in 1-card / 8-card pairs");
        };
        assert_eq!((one.cards, eight.cards), (1, 8));
        let measured = eight.images_per_s / one.images_per_s / 8.0;
        let estimated = e8 / e1 / 8.0;
        println!(
            "{:<24} {:>8}: 8-card efficiency measured {:.2}, estimated {:.2}",
            one.system,
            one.precision.id(),
            measured,
            estimated
        );
        assert!(estimated <= 1.0);
        assert!((estimated - measured).abs() <= SCALING_EFFICIENCY_BOUND);
    }
}
