//! Tensor parallelism (and DDP over an NVLink bridge or through host memory) against
//! published runs (fixtures/parallel_published.json: sources, setups and roles). The one
//! fitted point sets `perf.scaling.host_staged_factor`; the tensor-parallel model has no
//! constant of its own (it uses the link and device constants as they are), so every
//! Megatron point is held out. Each point is estimated
//! as the source ran it and its published figure is computed from the estimated step
//! time the way the source computed it. Prints the error table docs/validation.md carries
//! (`cargo test -p hsi-gpu-core --test parallel_published -- --nocapture`).

use hsi_gpu_core::cluster::{bus_bandwidth, Collective};
use hsi_gpu_core::gpu::gpu_by_id;
use hsi_gpu_core::graph::{ops, Activation, ModelBuilder, ModelSpec, Op};
use hsi_gpu_core::scaling::{ring_allreduce_s, ring_bus_bytes_per_s};
use hsi_gpu_core::scenario::{
    Attention, Interconnect, ModelChoice, NodeLink, Optimizer, Precision, Scenario,
};
use hsi_gpu_core::{estimate, Report};
use serde_json::{Map, Value};

type Fields = Map<String, Value>;

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/parallel_published.json")).unwrap()
}

fn int(f: &Fields, key: &str) -> Option<u64> {
    f.get(key).and_then(Value::as_u64)
}

fn text<'a>(f: &'a Fields, key: &str) -> &'a str {
    f.get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{key}"))
}

/// A GPT as Megatron-LM and GPT-2 build it, after the token embedding (the input is
/// the embedded sequence [s, h]; the tied output layer carries the embedding's
/// parameters): learned position embedding, `layers` pre-norm blocks (attention written
/// out with qkv bias, dropout 0.1 on both residual branches, MLP 4h with GELU), a final
/// LayerNorm and the logits over the vocabulary, viewed [V, s] for the loss.
fn gpt(hidden: u64, heads: u64, layers: u64, seq: u64, vocab: u64) -> ModelSpec {
    let mut b = ModelBuilder::new("GPT", vec![seq, hidden]);
    b.push_from("pos", &["input"], Op::PositionEmbedding);
    let mut last = "pos".to_string();
    for i in 0..layers {
        let n = |part: &str| format!("block{i}.{part}");
        b.push_from(&n("norm1"), &[&last], ops::layer_norm())
            .named(
                &n("attn"),
                Op::Attention {
                    heads,
                    head_dim: None,
                    qkv_bias: true,
                    extra_params: 0,
                },
            )
            .named(&n("attn_drop"), ops::dropout(0.1))
            .push_from(&n("attn_add"), &[&n("attn_drop"), &last], Op::Add)
            .named(&n("norm2"), ops::layer_norm())
            .named(&n("fc1"), ops::linear(4 * hidden))
            .named(&n("gelu"), ops::act(Activation::Gelu))
            .named(&n("fc2"), ops::linear(hidden))
            .named(&n("mlp_drop"), ops::dropout(0.1))
            .push_from(&n("mlp_add"), &[&n("mlp_drop"), &n("attn_add")], Op::Add);
        last = n("mlp_add");
    }
    b.push_from("norm", &[&last], ops::layer_norm())
        .named(
            "logits",
            Op::Linear {
                out_features: vocab,
                bias: false,
            },
        )
        .named("vocab_first", Op::Permute { order: vec![1, 0] });
    b.build()
}

/// The run `f` describes (a point's fields over its source's setup).
fn scenario(f: &Fields) -> Scenario {
    let tp = int(f, "tensor_parallel").unwrap_or(1) as u32;
    let batch = int(f, "batch").unwrap() as u32;
    let gpus = int(f, "gpus").map(|g| g as u32);
    let nodes = int(f, "nodes").map(|n| n as u32).or(gpus.map(|g| g / 8));
    let cards = match nodes {
        Some(_) => 8,
        None => int(f, "cards").map_or(tp, |c| c as u32),
    };
    let ranks = cards / tp * nodes.unwrap_or(1);
    let accum = int(f, "global_batch").map_or(1, |g| g as u32 / (batch * ranks));
    let mut s = Scenario {
        model: ModelChoice::Custom {
            spec: gpt(
                int(f, "hidden").unwrap(),
                int(f, "heads").unwrap(),
                int(f, "layers").unwrap(),
                int(f, "seq").unwrap(),
                int(f, "vocab").unwrap(),
            ),
        },
        // The input pipeline carries tokens: a negligible sample.
        bands: 1,
        patch: 1,
        batch_per_gpu: batch,
        precision: Precision::from_id(text(f, "precision")).unwrap(),
        optimizer: Optimizer::from_id(text(f, "optimizer")).unwrap(),
        checkpointing: f["checkpointing"].as_bool().unwrap(),
        attention: Attention::Math,
        gpu: text(f, "gpu").into(),
        cards,
        interconnect: Interconnect::from_id(text(f, "interconnect")).unwrap(),
        tensor_parallel: tp,
        nodes: nodes.unwrap_or(1),
        ..Scenario::default()
    };
    if let Some(link) = f.get("node_link").and_then(Value::as_str) {
        s.node_link = NodeLink::from_id(link).unwrap();
        s.nics_per_node = int(f, "nics").unwrap() as u32;
    }
    s.workload.grad_accum_steps = accum;
    s
}

fn merged(setup: &Value, over: &Value) -> Fields {
    let mut f = setup.as_object().unwrap().clone();
    for (k, v) in over.as_object().unwrap() {
        f.insert(k.clone(), v.clone());
    }
    f
}

/// The estimate of a run and its model FLOPs per step of one replica.
fn run(f: &Fields) -> (Report, f64) {
    let s = scenario(f);
    let r = estimate(&s).unwrap_or_else(|e| panic!("{e:?}"));
    let samples = f64::from(s.batch_per_gpu * s.workload.grad_accum_steps);
    let flops = (r.fwd_flops_per_sample + r.bwd_flops_per_sample) * samples;
    (r, flops)
}

/// Narayanan et al.'s equation (3): FLOPs of one sequence, with recomputation.
fn equation_3(f: &Fields) -> f64 {
    let [s, l, h, v] = ["seq", "layers", "hidden", "vocab"].map(|k| int(f, k).unwrap() as f64);
    96.0 * s * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h))
}

struct Row {
    source: String,
    role: String,
    metric: String,
    label: String,
    published: f64,
    estimated: f64,
}

impl Row {
    fn error(&self) -> f64 {
        self.estimated / self.published - 1.0
    }
}

/// nccl-tests' all_reduce bus bandwidth of `f`'s cards over their link, GB/s.
fn busbw_gb_s(f: &Fields) -> f64 {
    let s = Scenario::default();
    let a = &s.perf.scaling;
    let gpu = gpu_by_id(text(f, "gpu")).unwrap();
    let cards = int(f, "cards").unwrap() as u32;
    let interconnect = Interconnect::from_id(text(f, "interconnect")).unwrap();
    let bus = ring_bus_bytes_per_s(gpu, interconnect, cards, a).unwrap();
    let bytes = int(f, "bytes").unwrap() as f64;
    let seconds = ring_allreduce_s(bytes, cards, bus, a.hop_latency_s);
    bus_bandwidth(Collective::AllReduce, bytes, seconds, cards) / 1e9
}

/// The point's figure from the estimate of its run (and of its baseline run).
fn estimated(metric: &str, f: &Fields, baseline: &Fields) -> (f64, String) {
    if metric == "busbw_gb_s" {
        return (
            busbw_gb_s(f),
            format!("{} x2 all_reduce, 1 GB", text(f, "gpu")),
        );
    }
    let (r, flops) = run(f);
    let step = r.perf.time.step_s;
    let value = match metric {
        "weak_efficiency" => {
            let (b, base_flops) = run(baseline);
            let tp = f64::from(r.parallel.tensor_parallel);
            (flops / step / tp) / (base_flops / b.perf.time.step_s)
        }
        "speedup" => run(baseline).0.perf.time.step_s / step,
        "tflops_per_gpu" => {
            let global = int(f, "global_batch").unwrap() as f64;
            let gpus = int(f, "gpus").unwrap() as f64;
            equation_3(f) * global / step / gpus / 1e12
        }
        "time_ratio" => step / run(baseline).0.perf.time.step_s,
        m => panic!("metric {m}"),
    };
    let s = scenario(f);
    let label = format!(
        "h {}, {} heads x {} layers, TP {}, {} GPUs{}, {}",
        f["hidden"],
        f["heads"],
        f["layers"],
        s.tensor_parallel,
        s.cards * s.nodes,
        if s.nodes > 1 {
            format!(" ({} nodes)", s.nodes)
        } else {
            String::new()
        },
        s.interconnect.id()
    );
    (value, label)
}

fn rows() -> Vec<Row> {
    let fx = fixture();
    let sources = &fx["sources"];
    fx["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let source = p["source"].as_str().unwrap();
            let setup = &sources[source]["setup"];
            let baseline = sources[source]
                .get("baseline")
                .map_or_else(Fields::new, |b| merged(setup, b));
            let metric = p["metric"].as_str().unwrap();
            let (estimated, label) = estimated(metric, &merged(setup, p), &baseline);
            Row {
                source: source.into(),
                role: p["role"].as_str().unwrap().into(),
                metric: metric.into(),
                label,
                published: p["value"].as_f64().unwrap(),
                estimated,
            }
        })
        .collect()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        0.5 * (xs[n / 2 - 1] + xs[n / 2])
    }
}

#[test]
fn tensor_parallel_runs_against_published_figures() {
    let rows = rows();
    println!("| source | run | published | estimated | error |");
    println!("|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} ({}) | {} | {:.3} | {:.3} | {:+.0} % |",
            r.source,
            r.role,
            r.label,
            r.published,
            r.estimated,
            100.0 * r.error()
        );
    }
    // Narayanan et al.'s rows relative to their first (TP 1): the tensor x data
    // scaling apart from the per-GPU level.
    let per_gpu: Vec<&Row> = rows
        .iter()
        .filter(|r| r.metric == "tflops_per_gpu")
        .collect();
    if let Some(first) = per_gpu.first() {
        for r in &per_gpu {
            let (published, estimated) =
                (r.published / first.published, r.estimated / first.estimated);
            println!(
                "| {} (relative) | {} | {:.3} | {:.3} | {:+.0} % |",
                r.source,
                r.label,
                published,
                estimated,
                100.0 * (estimated / published - 1.0)
            );
        }
    }
    let errors = |role: &str| -> Vec<f64> {
        rows.iter()
            .filter(|r| r.role == role)
            .map(|r| r.error().abs())
            .collect()
    };
    let (fit, check) = (errors("fit"), errors("check"));
    println!(
        "median |error|: fit {:.1} % ({} points), check {:.1} % ({} points); worst check {:.1} %",
        100.0 * median(fit.clone()),
        fit.len(),
        100.0 * median(check.clone()),
        check.len(),
        100.0 * check.iter().copied().fold(0.0, f64::max)
    );
    assert!(fit.iter().all(|e| *e < 0.02), "the fitted point moved");
    assert!(median(check.clone()) < 0.15, "held-out median past 15 %");
    // The worst are Narayanan's A100 points, pessimistic: Megatron's fused kernels are
    // not modelled, and the A100 pays for the instructions its unfused element-wise
    // traffic issues (`memory_issue_per_kib`: -35 -> -40 %).
    assert!(
        check.iter().all(|e| *e < 0.42),
        "a held-out point past 42 %"
    );
}
