//! The verdict in words, every figure from the core's report: the page's verdict panel and
//! speed panel and the command line's summary print these same sentences.

use hsi_gpu_core::memory::MemoryBreakdown;
use hsi_gpu_core::perf::{Limiter, StepTime};
use hsi_gpu_core::steptime::StepBound;
use hsi_gpu_core::{dataset, format, gpu, Report, Scenario};

use crate::summary::labelled;
use crate::{
    alternative_sentence, at_limit_sentence, catalog_field_name, enumerated, fit_sentence,
    interconnect_name, max_batch_sentence, step_bound_sentence, step_parts_sentence, Lang, T,
};

/// The verdict's caution: the catalog figures the scenario uses that lack a primary
/// source, per card or scene ("... : RTX A5500: FP16 tensor-core compute, NVLink
/// support"); none where every figure has one.
pub fn unverified_caution(s: &Scenario, lang: Lang) -> Option<String> {
    let figures: Vec<String> = [
        gpu::gpu_by_id(&s.gpu).map(|g| (g.name, g.unverified)),
        dataset::dataset_by_id(&s.dataset).map(|d| (d.name, d.unverified)),
    ]
    .into_iter()
    .flatten()
    .filter(|(_, fields)| !fields.is_empty())
    .map(|(name, fields)| {
        let words: Vec<&str> = fields.iter().map(|f| catalog_field_name(f, lang)).collect();
        labelled(lang, name, &enumerated(lang, &words))
    })
    .collect();
    (!figures.is_empty()).then(|| {
        labelled(
            lang,
            T::Unverified.get(lang),
            &crate::grouped(lang, &figures),
        )
    })
}

/// What bounds the step, in words.
pub fn bound_text(bound: StepBound, lang: Lang) -> &'static str {
    match bound {
        StepBound::Host => T::BoundHost,
        StepBound::Input => T::BoundInput,
        StepBound::Device => T::BoundDevice,
        StepBound::Interconnect => T::BoundAllreduce,
        StepBound::Offload => T::BoundOffload,
    }
    .get(lang)
}

/// What limits the GPU's own time, in words.
pub fn limiter_text(limiter: Limiter, lang: Lang) -> &'static str {
    match limiter {
        Limiter::Compute => T::ComputeBound,
        Limiter::Memory => T::MemoryBound,
        Limiter::Launch => T::LaunchBound,
    }
    .get(lang)
}

/// The step's parts and what bounds it (the verdict and the speed panel).
pub fn step_parts(lang: Lang, report: &Report) -> String {
    let time = &report.perf.time;
    let input_rate = if time.input_samples_per_s.is_finite() {
        format::significant(time.input_samples_per_s)
    } else {
        "∞".into()
    };
    step_parts_sentence(
        lang,
        &format::duration(time.step_s),
        &format::duration(time.device_s),
        &format::duration(time.host_s),
        &format::duration(time.input_s),
        &input_rate,
        &step_extras(lang, report),
        bound_text(time.bound, lang),
    )
}

/// What the cards add to the step beyond its parts, seconds: the exposed all-reduce and
/// offload's copies and CPU Adam, where there are any.
pub fn added_by_cards(time: &StepTime) -> impl Iterator<Item = (T, f64)> {
    [
        (T::ExposedAllreduce, time.allreduce_exposed_s),
        (T::OptimizerOffload, time.optimizer_change_s),
    ]
    .into_iter()
    .filter(|(_, s)| *s > 0.0)
}

/// What the cards add to the step's parts ("the exposed all-reduce 12 ms"), each after
/// a comma; empty on one card without offload.
fn step_extras(lang: Lang, report: &Report) -> String {
    added_by_cards(&report.perf.time)
        .map(|(label, s)| {
            let part = format!("{} {}", label.get(lang), format::duration(s));
            match lang {
                Lang::En => format!(", the {part}"),
                Lang::Zh => format!("，{part}"),
            }
        })
        .collect()
}

/// Sentences as one paragraph: spaced in English, run together in Chinese.
pub fn paragraph(lang: Lang, sentences: &[String]) -> String {
    sentences.join(match lang {
        Lang::En => " ",
        Lang::Zh => "",
    })
}

/// The memory left spare, rounded down: 19.97 % spare under a 20 % headroom must not read
/// "20 %" beside a largest batch that it exceeds.
fn spare_text(fraction: f64) -> String {
    let pct = fraction * 100.0;
    // Within float noise of a whole step (0.29 x 100 = 28.999...), the step itself.
    let step = if pct.abs() < 10.0 { 10.0 } else { 1.0 };
    format::percent(((pct * step) + 1e-6).floor() / step / 100.0)
}

/// The verdict's sentences: fit, the largest batch, the step (and what limits the GPU when
/// it bounds the step), and the other topologies at `cards`, the cards one run's
/// all-reduce spans (`perf::ring_cards`; 1: none).
pub fn verdict_sentences(
    lang: Lang,
    report: &Report,
    gpu_name: &str,
    headroom: f64,
    cards: u32,
) -> Vec<String> {
    let m = &report.memory;
    let (total, capacity) = (format::bytes(m.total), format::bytes(m.capacity));
    // Short of the headroom asked: the largest batch and the levers say so too.
    let short = (m.fits && !m.within_budget).then(|| format::percent(headroom));
    let fit = match short {
        Some(asked) if m.spare_fraction >= headroom => {
            at_limit_sentence(lang, gpu_name, &total, &capacity, &asked)
        }
        _ => fit_sentence(
            lang,
            m.fits,
            gpu_name,
            &spare_text(m.spare_fraction),
            &total,
            &capacity,
            short.as_deref(),
        ),
    };
    let mut out = vec![
        fit,
        max_batch_sentence(lang, &format::percent(headroom), report.max_batch),
    ];
    let perf = &report.perf;
    let time = &perf.time;
    if time.step_s > 0.0 {
        out.push(step_parts(lang, report));
        if time.bound == StepBound::Device {
            out.push(step_bound_sentence(lang, limiter_text(time.limiter, lang)));
        }
    }
    if let Some(chosen) = perf.scaling.chosen_point(cards).filter(|_| cards > 1) {
        let chosen_s = format::duration(chosen.step_s);
        for curve in perf.scaling.ddp.iter() {
            if curve.interconnect == perf.scaling.chosen {
                continue;
            }
            let other = curve.points.iter().find(|p| p.cards == cards);
            // A link that changes nothing in the figure shown says nothing.
            if let Some(other_s) = other.map(|p| format::duration(p.step_s)) {
                if other_s != chosen_s {
                    out.push(alternative_sentence(
                        lang,
                        interconnect_name(curve.interconnect, lang),
                        &other_s,
                        &chosen_s,
                    ));
                }
            }
        }
    }
    out
}

/// The memory peak's terms in the page's bar order, each with its label, in bytes.
pub fn memory_terms(m: &MemoryBreakdown) -> [(T, f64); 9] {
    [
        (T::TermContext, m.cuda_context),
        (T::TermWeights, m.weights),
        (T::TermGradients, m.gradients),
        (T::TermOptimizer, m.optimizer_states),
        (T::TermActivations, m.activations),
        (T::TermTransient, m.transient),
        (T::TermAllocator, m.allocator),
        (T::TermInputCube, m.input_cube),
        (T::TermShardingBuffers, m.sharding_buffers),
    ]
}

/// "Layout: TP 2 × PP 2 × DP 1 · tensor-parallel all-reduces per micro-batch: 12 ms ·
/// pipeline bubble: 27 %" with tensor or pipeline parallelism; None without.
pub fn layout_line(lang: Lang, report: &Report) -> Option<String> {
    let p = &report.parallel;
    if p.tensor_parallel * p.pipeline_parallel <= 1 {
        return None;
    }
    let layout = format!(
        "TP {} × PP {} × DP {}",
        p.tensor_parallel, p.pipeline_parallel, p.data_parallel
    );
    let mut parts = vec![labelled(lang, T::Layout.get(lang), &layout)];
    if p.tensor_parallel > 1 {
        let t = format::duration(report.perf.time.tensor_allreduce_s);
        parts.push(labelled(lang, T::TensorAllreduces.get(lang), &t));
    }
    if p.pipeline_parallel > 1 {
        let bubble = format::percent(p.bubble_fraction);
        parts.push(labelled(lang, T::PipelineBubble.get(lang), &bubble));
    }
    Some(parts.join(" · "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hsi_gpu_core::{estimate, Scenario};

    fn link_sentences(json: &str) -> Vec<String> {
        let s: Scenario = hsi_gpu_core::scenario::scenario_from_json(json).unwrap();
        let report = estimate(&s).unwrap();
        verdict_sentences(Lang::En, &report, "GPU", 0.2, s.cards)
            .into_iter()
            .filter(|t| t.contains("would take"))
            .collect()
    }

    #[test]
    fn the_spare_memory_is_rounded_down_past_the_largest_batch() {
        assert_eq!(spare_text(0.1997), "19 %");
        assert_eq!(spare_text(0.29), "29 %");
        assert_eq!(spare_text(0.0456), "4.5 %");
        // One sample over the largest batch no longer reads as the 20 % headroom kept.
        let mut s = Scenario::default();
        s.batch_per_gpu = estimate(&s).unwrap().max_batch + 1;
        let report = estimate(&s).unwrap();
        assert!(report.memory.spare_fraction < 0.2);
        let fit = &verdict_sentences(Lang::En, &report, "GPU", 0.2, 1)[0];
        assert!(
            fit.contains("with only 19 % headroom, less than the 20 % asked"),
            "{fit}"
        );
        let zh = &verdict_sentences(Lang::Zh, &report, "GPU", 0.2, 1)[0];
        assert!(zh.contains("低于要求的 20 %"), "{zh}");
    }

    #[test]
    fn a_step_squeezed_at_the_cards_limit_reads_as_keeping_no_headroom() {
        // SSFTT in bf16 on an A100 40 GB: the total fits the budget only because the
        // allocator handed its cache back at the card's limit (`memory::within_budget`).
        let s: Scenario = hsi_gpu_core::scenario::scenario_from_json(
            r#"{"model": {"kind": "preset", "id": "ssftt"}, "bands": 30, "patch": 11,
                "precision": "bf16", "gpu": "a100_40_pcie", "batch_per_gpu": 168386}"#,
        )
        .unwrap();
        let report = estimate(&s).unwrap();
        assert!(report.memory.spare_fraction >= 0.2);
        let fit = &verdict_sentences(Lang::En, &report, "GPU", 0.2, 1)[0];
        assert!(fit.contains("only at the card's limit"), "{fit}");
        assert!(fit.contains("less than the 20 % headroom asked"), "{fit}");
        let zh = &verdict_sentences(Lang::Zh, &report, "GPU", 0.2, 1)[0];
        assert!(zh.contains("交还缓存"), "{zh}");
    }

    #[test]
    fn the_other_link_is_named_only_where_it_changes_the_step() {
        // Bridged pairs of A6000s: PCIe costs a ViT-B its all-reduce.
        let vit = r#"{"model": {"kind": "preset", "id": "vit", "size": "base"}, "patch": 32,
            "cards": 2, "gpu": "rtx_a6000", "interconnect": "nvlink_bridge"}"#;
        let [sentence] = &link_sentences(vit)[..] else {
            panic!("{:?}", link_sentences(vit));
        };
        let (other, chosen) = sentence
            .trim_end_matches('.')
            .split_once(" instead of ")
            .unwrap();
        assert!(
            other.ends_with(" ms") && chosen.ends_with(" ms"),
            "{sentence}"
        );
        assert_ne!(other.rsplit(' ').nth(1), chosen.split(' ').next());
        // HybridSN on four A5500s hides its all-reduce on either link: nothing to say.
        assert_eq!(link_sentences(r#"{"cards": 4}"#), Vec::<String>::new());
        // Split over the cards, the other link's curve would not move the split's own
        // collectives: no sentence rather than a wrong one.
        let split = r#"{"model": {"kind": "preset", "id": "vit", "size": "base"}, "patch": 32,
            "cards": 2, "tensor_parallel": 2, "gpu": "rtx_a6000", "interconnect": "nvlink_bridge"}"#;
        assert_eq!(link_sentences(split), Vec::<String>::new());
    }

    #[test]
    fn the_step_sentence_names_what_the_cards_add_and_what_bounds_it() {
        let step = |lang, json: &str| {
            let s: Scenario = hsi_gpu_core::scenario::scenario_from_json(json).unwrap();
            step_parts(lang, &estimate(&s).unwrap())
        };
        // One card, ZeRO-3 with offload: CPU Adam over ViT-B's 86 M parameters takes
        // longer than the GPU's share of 8 samples.
        let offload = r#"{"model": {"kind": "preset", "id": "vit"}, "patch": 64, "bands": 128,
            "batch_per_gpu": 8, "sharding": "zero3", "offload": true}"#;
        let en = step(Lang::En, offload);
        let (parts, bound) = en.split_once("; ").unwrap();
        assert!(
            parts.contains("on its own), the optimizer offload "),
            "{en}"
        );
        assert_eq!(
            bound,
            "the optimizer offload (PCIe copies and CPU Adam) bounds it."
        );
        let zh = step(Lang::Zh, offload);
        assert!(zh.contains("个样本），优化器卸载 "), "{zh}");
        assert!(
            zh.ends_with("瓶颈在优化器卸载（PCIe 拷贝与 CPU Adam）。"),
            "{zh}"
        );
        // Eight RTX 4090s over PCIe: ViT-B's all-reduce is not hidden by 8 samples.
        let pcie = r#"{"model": {"kind": "preset", "id": "vit"}, "patch": 64, "cards": 8,
            "gpu": "rtx_4090", "batch_per_gpu": 8}"#;
        let en = step(Lang::En, pcie);
        assert!(en.contains("), the exposed all-reduce "), "{en}");
        assert!(
            en.ends_with("; the all-reduce between the cards bounds it."),
            "{en}"
        );
        // One card without offload: the three parts only.
        let one = step(Lang::En, "{}");
        assert!(one.contains("on its own); "), "{one}");
    }
}
