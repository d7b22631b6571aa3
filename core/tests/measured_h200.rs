//! The estimate against training steps measured on one NVIDIA H200 SXM
//! (`tools/measure_suite.py`, fixtures `measured_h200/zoo.jsonl` and `followup.jsonl`: the
//! zoo's HSI models, ViT-B with the foundation-model options and five published benchmark
//! models, PyTorch 2.11 / CUDA 13.0 / cuDNN 9.19 in a 16-vCPU Xeon virtual machine).
//!
//! The host constants (`perf.host`), cuDNN's FP32 heuristic slowdown and the Hopper 2-D
//! convolution factors were fitted on the `fit` models' steps and are checked on the
//! rest (`FIT_MODELS` in `common/h200.rs`); the Hopper 3-D factors and lowered-operand
//! rates come from the single convolutions (`measured_h200_conv3d.rs`).
//! `cargo test --test measured_h200 -- --nocapture` prints the table the README and
//! docs/validation.md carry; the test fails when either carries a stale row. The same
//! steps' memory figures the docs state are checked in `measured_h200_memory.rs`.

use common::h200::{cases, display_name, error, Case};
use common::median;

mod common;

/// The table's terms: (comparison term, column). Host time leaves out GradScaler's steps,
/// the memory peaks the layer lists that kept every output.
const TERMS: [(&str, &str); 4] = [
    ("peak_allocated_bytes", "allocated peak"),
    ("peak_reserved_bytes", "reserved peak"),
    ("step_time_s", "step time"),
    ("host_step_s", "host time"),
];

/// One term over some steps: median |error| %, the worst factor either way, and how many
/// estimates are optimistic (below the measurement: too small, too fast).
struct Errors {
    steps: usize,
    median: f64,
    worst: f64,
    /// The worst factor among the optimistic estimates (measured over estimated).
    worst_low: f64,
    optimistic: usize,
}

/// `split`: only the steps whose `term` was fitted (`Some(true)`) or held out.
fn errors(cases: &[&Case], term: &str, split: Option<bool>) -> Option<Errors> {
    let e: Vec<f64> = cases
        .iter()
        .filter(|c| split.is_none_or(|fit| c.fitted(term) == fit))
        .filter(|c| term != "host_step_s" || !c.host_synced)
        .filter(|c| !term.starts_with("peak_") || c.memory_compared())
        .map(|c| error(c, term))
        .collect();
    (!e.is_empty()).then(|| Errors {
        steps: e.len(),
        median: median(e.iter().map(|x| x.abs()).collect()),
        worst: e
            .iter()
            .map(|x| (1.0 + x / 100.0).max(1.0 / (1.0 + x / 100.0)))
            .fold(1.0, f64::max),
        worst_low: e
            .iter()
            .map(|x| 1.0 / (1.0 + x / 100.0))
            .fold(1.0, f64::max),
        optimistic: e.iter().filter(|x| **x < 0.0).count(),
    })
}

/// A row of the table: each term's median, worst and optimistic count.
fn row(name: &str, split: &str, cases: &[&Case], fit: Option<bool>) -> String {
    let cells: Vec<String> = TERMS
        .iter()
        .map(|(term, _)| match errors(cases, term, fit) {
            Some(e) => format!(
                "{:.0} % · {:.2}x · {}/{}",
                e.median, e.worst, e.optimistic, e.steps
            ),
            None if *term == "host_step_s" => "(GradScaler)".into(),
            None => "(held every output)".into(),
        })
        .collect();
    format!(
        "| {name} | {split} | {} | {} |",
        cases
            .iter()
            .filter(|c| fit.is_none_or(|f| c.fit == f))
            .count(),
        cells.join(" | ")
    )
}

/// docs/validation.md's table: every step, then per model, per split and overall. Each
/// cell: median |error|, worst factor, steps whose estimate is optimistic / steps.
#[test]
fn the_estimate_against_the_h200_measurements() {
    let cases = cases();
    println!("| step | split | step measured ms | step | host | allocated | reserved |");
    for c in &cases {
        let ms = c.c.term("step_time_s").unwrap().measured * 1e3;
        println!(
            "| {} | {} | {ms:.2} | {:+.0} % | {:+.0} % | {:+.0} % | {:+.0} % |",
            c.label,
            match (c.fit, c.time_fit) {
                (true, _) => "fit",
                (false, true) => "held out (time fit)",
                (false, false) => "held out",
            },
            error(c, "step_time_s"),
            error(c, "host_step_s"),
            error(c, "peak_allocated_bytes"),
            error(c, "peak_reserved_bytes"),
        );
    }
    let mut models: Vec<&str> = Vec::new();
    for c in &cases {
        if !models.contains(&c.model.as_str()) {
            models.push(&c.model);
        }
    }
    let columns: Vec<&str> = TERMS.iter().map(|(_, name)| *name).collect();
    println!("| model | split | steps | {} |", columns.join(" | "));
    let mut table = Vec::new();
    for model in models {
        let set: Vec<&Case> = cases.iter().filter(|c| c.model == model).collect();
        let time_fit = set.iter().filter(|c| c.time_fit).count();
        let split = match (set[0].fit, set[0].memory_fit, time_fit) {
            (true, _, _) => "fit".to_string(),
            (false, true, 0) => "held out (memory fit)".into(),
            (false, true, n) => format!("held out (memory and {n} steps' times fit)"),
            (false, false, _) => "held out".into(),
        };
        table.push(row(display_name(model), &split, &set, None));
    }
    let all: Vec<&Case> = cases.iter().collect();
    // cuDNN's untimed picks: the HSI 3-D CNNs without cudnn.benchmark.
    let untimed: Vec<&Case> = cases
        .iter()
        .filter(|c| {
            !c.cudnn_benchmark
                && ["hybridsn", "ssrn", "dbda", "hamida3d"].contains(&c.model.as_str())
        })
        .collect();
    table.extend([
        row("fit models", "fit", &all, Some(true)),
        row("held-out models", "held out", &all, Some(false)),
        row("all", "", &all, None),
        row("3-D CNNs without cudnn.benchmark", "", &untimed, None),
    ]);
    println!("{}", table.join("\n"));
    // The README and docs/validation.md carry these rows as they are (bold aside): an
    // estimator change that moves a figure must update them.
    for doc in ["README.md", "docs/validation.md"] {
        let text = common::repo_file(doc).replace("**", "");
        let stale: Vec<&String> = table
            .iter()
            .filter(|r| !text.lines().any(|line| line == r.as_str()))
            .collect();
        assert!(
            stale.is_empty(),
            "{doc}: rows missing or stale, as they are now:\n{stale:#?}"
        );
    }
    // The steps that began with memory left over: reserved against the peak less it
    // (an approximation: the step may reuse some of it).
    for c in cases
        .iter()
        .filter(|c| !c.held_every_output && !c.memory_compared())
    {
        let reserved = c.c.term("peak_reserved_bytes").unwrap();
        let without = reserved.measured - c.left_over_bytes;
        println!(
            "{}: {:.0} MB left over; reserved {:+.0} % against the peak less it",
            c.label,
            c.left_over_bytes / 1e6,
            (reserved.predicted / without - 1.0) * 100.0
        );
    }

    let step = errors(&all, "step_time_s", None).unwrap();
    let fit_step = errors(&all, "step_time_s", Some(true)).unwrap();
    let held_out_step = errors(&all, "step_time_s", Some(false)).unwrap();
    for (name, e) in [
        ("all", &step),
        ("fit", &fit_step),
        ("held out", &held_out_step),
    ] {
        println!(
            "step time, {name}: median {:.1} %, worst {:.2}x, {} of {} too fast",
            e.median, e.worst, e.optimistic, e.steps
        );
    }
    let held_out_host = errors(&all, "host_step_s", Some(false)).unwrap();
    let untimed_step = errors(&untimed, "step_time_s", None).unwrap();
    let allocated = errors(&all, "peak_allocated_bytes", None).unwrap();
    let reserved = errors(&all, "peak_reserved_bytes", None).unwrap();
    println!(
        "allocated: median {:.2} %, reserved: median {:.2} %",
        allocated.median, reserved.median
    );
    // 24 % before the BLAS workspaces were counted. Before the caching allocator was
    // simulated (reserved = tensors x a flat 5 % fragmentation, no cuDNN workspaces):
    // allocated 6 % median, 2.22x worst, 50/74 optimistic; reserved 21 %, 4.07x, 59/74.
    // With it: allocated 6 %, 1.92x, 49/74; reserved 14 %, 2.48x, 54/74; with the CUDA-core
    // workspace share fitted on HybridSN's sweep (0.39 -> 0.54): allocated 4 %, 46/74;
    // reserved 14 %, 48/74. Leaving out the 7 layer-list steps whose forward kept every
    // output (ResNet-50 -37 % allocated on all three was that): allocated 3.6 %, 40/67;
    // reserved 10.5 %, 42/67; and the 12 that began with 254-548 MB left over by the steps
    // before them (the cudnn.benchmark steps' reserved -16..-54 % was mostly that):
    // 3.6 %, 31/55; 10.5 %, 34/55. With each kept tensor its own block (a max-pool's
    // input and indices were one, past the small pool's 1 MiB) and the forward outputs
    // backward keeps none of allocated until the next layer ran: reserved 8.9 %, 35/55
    // (HybridSN in AMP at batch 64 -28 -> -5 %, its 16-bit steps at batch 256 +9 -> -5..-6 %).
    // Issue 22's median targets (allocated 5 %, reserved 10 %) are met; the worst (1.2x,
    // 1.25x) are not. Before cuDNN's RNN reserve space and workspaces (`perf.cudnn.rnn_*`):
    // allocated 1.92x, 31/55; reserved 8.6 %, 2.48x, 35/55 (the GRU the furthest off);
    // then SSFTT was (1.68x allocated, 1.54x reserved, 29/55 and 33/55 optimistic). With
    // untimed 2-D convolutions' workspaces: 1.44x, 1.53x (both HybridSN at batch 64 on the
    // safe side, a step measured 0.71 and 0.50 GB), 28/55 and 32/55.
    // The page's note on how well the estimate was checked says these medians, in both
    // languages (src/i18n/strings.rs, `EstimatesNote`).
    let note = common::repo_file("src/i18n/strings.rs");
    let (s, u) = (step.median, untimed_step.median);
    let (a, r) = (allocated.median, reserved.median);
    for said in [
        format!("{s:.1} % on our own H200 runs (HSI 3-D CNNs without cudnn.benchmark: {u:.0} %)"),
        format!("allocated peak memory by {a:.0} %, reserved (the caching allocator, simulated) by {r:.0} %"),
        format!("H200 实测上为 {s:.1} %（未开 cudnn.benchmark 的高光谱 3-D CNN：{u:.0} %）"),
        format!("已分配显存峰值为 {a:.0} %，已保留显存（模拟缓存分配器）为 {r:.0} %"),
    ] {
        assert!(note.contains(&said), "the page's note should say: {said}");
    }
    // So does the guide's "how far to trust the numbers", in both languages.
    let guide = |file: &str, join: &str| common::repo_file(file).replace('\n', join);
    let (so, sn) = (step.optimistic, step.steps);
    let (ro, rn, rw) = (reserved.optimistic, reserved.steps, reserved.worst_low);
    for (text, said) in [
        (
            guide("docs/guide.md", " "),
            format!(
                "step time {s:.1} % off at the median, {so} of {sn} steps too fast; memory as the \
                 caching allocator reserves it, simulated with cuDNN's workspaces, {r:.0} % at \
                 the median and up to {rw:.1}x low, {ro} of {rn} steps under the measured \
                 figure; the allocated peak {a:.0} %"
            ),
        ),
        (
            guide("docs/guide.zh.md", ""),
            format!(
                "单步时间中位误差 {s:.1} %，{sn} 步中 {so} 步偏快；显存按缓存分配器的已保留峰值模拟\
                 （含 cuDNN 工作空间），中位误差 {r:.0} %，最多少算 {rw:.1} 倍，{rn} 步中 {ro} 步\
                 低于实测；已分配峰值 {a:.0} %"
            ),
        ),
    ] {
        assert!(text.contains(&said), "the guide should say: {said}");
    }
    within(&allocated, 4.0, 1.45, "allocated peak");
    within(&reserved, 6.0, 1.55, "reserved peak");
    assert!(
        allocated.optimistic <= 28,
        "allocated: {} optimistic",
        allocated.optimistic
    );
    assert!(
        reserved.optimistic <= 32,
        "reserved: {} optimistic",
        reserved.optimistic
    );
    for c in &cases {
        if let Some(t) = c.c.term("max_batch") {
            println!(
                "{}: largest batch {} estimated, {} measured",
                c.label, t.predicted, t.measured
            );
        }
    }
    // Before the host constants were fitted (and cuDNN's RNN counted as one op) the
    // held-out medians were 59 % (host) and 59 % (step); 20.2 % (host) before attention's
    // head views were counted.
    assert!(
        held_out_host.median < 17.5,
        "held-out host median {:.1} %",
        held_out_host.median
    );
    // Before cuDNN's untimed algorithms were modelled: all steps 29.5 % at the median,
    // 55 of 74 too fast, the worst 10x (HybridSN in FP32); the 21 untimed 3-D CNN steps
    // 59 % and 10x, all 21 too fast. Before fused attention's Hopper rate, frozen layers'
    // backward, attention's host views and the device waiting for the host's issue: 22 %
    // (fit 11 %, held out 30 %), 45 of 74 too fast (ViT-B/8 frozen +23 -> -10 % and the
    // 1-D CNN at batch 1024 +2 -> -1 % changed sign, HybridSN AMP at batch 64 -5 -> +6 %).
    // Before the instruction issue of memory traffic (`memory_issue_per_kib`): 16.5 %,
    // 1.96x, 46 too fast; held out 23 %. Before cuDNN's persistent RNN kernel
    // (`perf.cudnn.rnn_persistent_*`): 15.8 %, 1.88x (the GRU at batch 512), 45 too fast.
    // Before cuDNN's RNN weight queries (`perf.host.rnn_weight_query_s`): 14.9 %. Issue
    // 22's target for all steps, 20 % and 2x, is met.
    assert!(step.median < 13.5, "step median {:.1} %", step.median);
    assert!(step.worst < 1.85, "step worst {:.2}x", step.worst);
    assert!(step.optimistic <= 46, "{} steps too fast", step.optimistic);
    assert!(
        fit_step.median < 8.5,
        "fit step median {:.1} %",
        fit_step.median
    );
    assert!(
        held_out_step.median < 20.5,
        "held-out step median {:.1} %",
        held_out_step.median
    );
    within(&untimed_step, 20.0, 2.0, "untimed 3-D CNN steps");
}

/// Asserts a median error under `median` % and a worst ratio under `worst`.
fn within(e: &Errors, median: f64, worst: f64, what: &str) {
    assert!(
        e.median < median && e.worst < worst,
        "{what}: median {:.1} %, worst {:.2}x",
        e.median,
        e.worst
    );
}
