//! Memory measured on one NVIDIA H200 SXM (the steps `measured_h200.rs` compares; how they
//! are read is in `common/h200.rs`) against what the estimate, the warnings and the docs
//! say of it: the GRU's peaks the recurrent-layer warning words and its bf16 steps held
//! out of the RNN workspace fit, the CUDA context an H200 scenario counts, the headroom
//! the measured device totals needed, and the largest batches of the two sweeps.

use common::h200::{cases, display_name, error, Case};
use hsi_gpu_core::gpu::gpu_by_id;
use hsi_gpu_core::report::Warning;
use hsi_gpu_core::scenario::scenario_from_json;

mod common;

/// The recurrent-layer warning's figures are the GRU's measured / estimated peak memory
/// (allocated and reserved) over its compared steps, rounded as the warning words them.
#[test]
fn the_recurrent_warning_says_what_the_gru_measured() {
    let cases = cases();
    let factors: Vec<f64> = cases
        .iter()
        .filter(|c| c.model == "mou_rnn" && c.memory_compared())
        .flat_map(|c| ["peak_allocated_bytes", "peak_reserved_bytes"].map(|t| c.c.term(t).unwrap()))
        .map(|t| t.measured / t.predicted)
        .collect();
    assert_eq!(factors.len(), 8);
    let low = factors.iter().copied().fold(f64::INFINITY, f64::min);
    let high = factors.iter().copied().fold(0.0, f64::max);
    let worded = format!("{low:.1}-{high:.1}x");
    let warning = Warning::RecurrentReserve.to_string();
    assert!(warning.contains(&worded), "{worded}: {warning}");
}

/// `perf.cudnn.rnn_workspace_per_step` was fitted on the GRU's two FP32 steps (the value
/// of 17, 18, 19 with the least median |error| over their allocated and reserved peaks;
/// the reserve comes from pytorch/pytorch#2895): its two bf16 steps, held out, are within
/// 10 % on both peaks. Before the reserve and workspaces were counted: -26..-48 %.
#[test]
fn the_grus_bf16_steps_held_out_of_the_rnn_workspace_fit_are_within_10_percent() {
    let cases = cases();
    let held_out: Vec<&Case> = cases
        .iter()
        .filter(|c| c.model == "mou_rnn" && c.label.contains("amp_bf16"))
        .collect();
    assert_eq!(held_out.len(), 2);
    for c in held_out {
        for term in ["peak_allocated_bytes", "peak_reserved_bytes"] {
            let e = error(c, term);
            assert!(e.abs() < 10.0, "{} {term}: {e:+.0} %", c.label);
        }
    }
}

/// The CUDA context an H200 scenario counts by default is the measured one (device memory
/// in use less reserved, every step), and a scenario's own value overrides the card's.
#[test]
fn the_h200_context_is_the_measured_one() {
    let measured: Vec<f64> = ["zoo.jsonl", "followup.jsonl"]
        .iter()
        .flat_map(|f| common::h200::records(f))
        .filter_map(|r| r["measurement"]["context_bytes"].as_f64())
        .collect();
    assert!(measured.len() >= 70, "{} contexts", measured.len());
    let (low, high) = measured
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), &c| (lo.min(c), hi.max(c)));
    let context = |json: &str| {
        let s = scenario_from_json(json).unwrap();
        hsi_gpu_core::memory::cuda_context(&s, gpu_by_id(&s.gpu).unwrap())
    };
    let h200 = context(r#"{"gpu": "h200_sxm", "interconnect": "nvswitch"}"#);
    assert!(
        h200 >= high && h200 <= high * 1.01,
        "{h200} against {low}..{high}"
    );
    let set = context(
        r#"{"gpu": "h200_sxm", "interconnect": "nvswitch", "memory": {"cuda_context_bytes": 1000}}"#,
    );
    assert_eq!(set, 1000.0);
    assert!(
        context(r#"{"gpu": "rtx_3090"}"#) < low,
        "cards not measured keep the general default"
    );
}

/// The headroom a step needed: how far under its measured device total (reserved peak +
/// CUDA context, what an out-of-memory error is decided on) the estimate's total was, as
/// a share of the measured one (0 or less: the estimate held it). The default headroom
/// (`memory.headroom`, 20 %) covered every compared step but three; the README and
/// docs/validation.md say how many and which, the page's note and the guide how many.
#[test]
fn the_default_headroom_covers_the_measured_device_totals() {
    let cases = cases();
    let compared: Vec<(&str, f64)> = cases
        .iter()
        .filter(|c| c.memory_compared())
        .map(|c| {
            let t = c.c.term("device_total_bytes").unwrap();
            (c.label.as_str(), 1.0 - t.predicted / t.measured)
        })
        .collect();
    let headroom = hsi_gpu_core::Scenario::default().memory.headroom;
    let short: Vec<&(&str, f64)> = compared.iter().filter(|c| c.1 > headroom).collect();
    // "GRU (Mou) at batch 512 in AMP bf16 (24 %)": the step in the docs' words.
    let named: Vec<String> = short
        .iter()
        .map(|(label, needed)| {
            let [model, batch, precision, ..] = label.split_whitespace().collect::<Vec<_>>()[..]
            else {
                panic!("{label}")
            };
            let model = display_name(model);
            let precision = match precision {
                "torch_default" => "PyTorch's default precision",
                "amp_bf16" => "AMP bf16",
                other => other,
            };
            let batch = &batch[1..];
            format!(
                "{model} at batch {batch} in {precision} ({:.0} %)",
                needed * 100.0
            )
        })
        .collect();
    println!("{named:?}");
    let covered = compared.len() - short.len();
    let stated = format!(
        "{:.0} % headroom covered {covered} of {}",
        headroom * 100.0,
        compared.len()
    );
    println!("{stated}");
    assert!(short.len() <= 3, "{stated}");
    // The page's note says it too, and the guide, in both languages.
    let (h, n) = (headroom * 100.0, compared.len());
    let zh = format!("默认的 {h:.0} % 余量覆盖了 {n} 个实测步骤中的 {covered} 个");
    for (file, said) in [
        (
            "src/i18n/strings.rs",
            format!("the default {h:.0} % covered {covered} of {n} measured steps"),
        ),
        ("src/i18n/strings.rs", zh.clone()),
        ("docs/guide.md", stated.clone()),
        ("docs/guide.zh.md", zh),
    ] {
        assert!(
            common::repo_prose(file).contains(&said),
            "{file} should say: {said}"
        );
    }
    for doc in ["README.md", "docs/validation.md"] {
        let text = common::repo_prose(doc);
        assert!(text.contains(&stated), "{doc} should say: {stated}");
        for step in &named {
            assert!(text.contains(step), "{doc} should name {step}");
        }
    }
}

/// The largest batches the docs state are the estimate's against the two sweeps' (a stale
/// figure fails), and HybridSN's stays on the safe side of its measured one.
#[test]
fn the_docs_state_the_largest_batches_the_sweeps_give() {
    let (readme, validation, models) = (
        common::repo_prose("README.md"),
        common::repo_prose("docs/validation.md"),
        common::repo_prose("docs/models.md"),
    );
    let mut swept = Vec::new();
    for c in cases() {
        let Some(t) = c.c.term("max_batch") else {
            continue;
        };
        let [p, m] = [t.predicted, t.measured].map(|b| hsi_gpu_core::format::count(b as u64));
        let said: Vec<(&str, String)> = match c.model.as_str() {
            "hybridsn" => {
                assert!(t.predicted < t.measured, "{p} against {m}: past the card");
                vec![
                    (&readme, format!("{p} estimated against {m} measured")),
                    (&validation, format!("{p} estimated against {m} measured")),
                    (&models, format!("HybridSN {p} against {m} measured")),
                ]
            }
            "vit" => vec![
                (&readme, format!("ViT-B/8's {p} against {m}")),
                (&validation, format!("ViT-B/8's {p} against {m}")),
            ],
            other => panic!("a sweep of {other} the docs do not state"),
        };
        for (text, words) in said {
            assert!(text.contains(&words), "a doc should say: {words}");
        }
        swept.push(c.model);
    }
    assert_eq!(swept, ["hybridsn", "vit"]);
}
