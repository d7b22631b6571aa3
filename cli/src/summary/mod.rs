//! `hsi-gpu summary` and `hsi-gpu options --summary`: the estimate and the comparison as
//! text for a terminal, in English or Chinese. Every figure is the Report's (the same
//! `estimate_all` as `hsi-gpu estimate`), every word the page's (`hsi-gpu-i18n`).

mod layout;
mod options;

use hsi_gpu_core::levers::LeverOutcome;
use hsi_gpu_core::scaling::ScalingPoint;
use hsi_gpu_core::scenario::{ParallelMode, Sharding};
use hsi_gpu_core::{dataset, format, gpu, perf, Report, Scenario};
use hsi_gpu_i18n::summary::{labelled, on_its_own, with_note, S};
use hsi_gpu_i18n::whatifs::{best_lever_text, cudnn_benchmark_sentence, lever_label};
use hsi_gpu_i18n::whatifs::{limit_name, limit_sentence, X};
use hsi_gpu_i18n::{self as i18n, Lang, T};

pub use options::options_summary;

use layout::{bullet, table, wrap};

/// The summary's options: `--lang en|zh` (English by default), and for `options`,
/// `--summary`. Returns the language and the one file argument.
pub fn parse_args(args: &[String], summary_flag: bool) -> Result<(Lang, String), String> {
    let mut lang = Lang::En;
    let mut summary = !summary_flag;
    let mut path = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--lang" => {
                let code = rest.next().map_or("", String::as_str);
                lang = Lang::from_code(code)
                    .ok_or_else(|| format!("--lang: got '{code}'; allowed: en, zh"))?;
            }
            "--summary" if summary_flag => summary = true,
            flag if flag.starts_with("--") => {
                let allowed = if summary_flag {
                    "--summary, --lang en|zh"
                } else {
                    "--lang en|zh"
                };
                return Err(format!("{flag}: unknown option; allowed: {allowed}"));
            }
            file if path.is_none() => path = Some(file.to_string()),
            extra => return Err(format!("{extra}: one file only (or - for stdin)")),
        }
    }
    if !summary {
        return Err("--lang: allowed only with --summary".into());
    }
    let path = path.ok_or("a file is needed (or - for stdin)")?;
    Ok((lang, path))
}

/// A section's heading line.
fn heading(title: &str) -> String {
    format!("\n{title}")
}

/// The estimate in one screen: the verdict, memory term by term, the step, scaling,
/// cost, the best levers and the remarks.
pub fn estimate_summary(s: &Scenario, report: &Report, lang: Lang) -> String {
    let gpu_name = gpu::gpu_by_id(&s.gpu).map_or(s.gpu.as_str(), |g| g.name);
    let mut out = header(s, report, gpu_name, lang);
    out.push(heading(T::Verdict.get(lang)));
    let verdict = i18n::verdict_sentences(
        lang,
        report,
        gpu_name,
        s.memory.headroom,
        perf::ring_cards(s),
    );
    out.extend(wrap(&i18n::paragraph(lang, &verdict), "  "));
    if let Some(caution) = i18n::unverified_caution(s, lang) {
        out.extend(wrap(&caution, "  "));
    }
    out.extend(memory(report, gpu_name, s.memory.headroom, lang));
    out.extend(step(report, lang));
    out.extend(parallel(report, lang));
    out.extend(scaling(s, report, lang));
    out.extend(cost(report, lang));
    out.extend(levers(report, lang));
    if !report.warnings.is_empty() {
        out.push(heading(T::Warnings.get(lang)));
        for w in &report.warnings {
            out.extend(bullet(&i18n::warning_text(w, lang), "  "));
        }
    }
    out.join("\n")
}

/// What was estimated: model, dataset, cards; geometry, batch, precision, optimizer.
fn header(s: &Scenario, report: &Report, gpu_name: &str, lang: Lang) -> Vec<String> {
    let scene = dataset::dataset_by_id(&s.dataset).map_or(s.dataset.as_str(), |d| d.name);
    let mut cards = format!("{} × {gpu_name}", s.cards);
    if s.nodes > 1 {
        cards = format!("{} × {cards}", s.nodes);
    }
    let mut params = format!("{} {}", T::Params.get(lang), format::count(report.params));
    if report.trainable_params != report.params {
        let trainable = format::count(report.trainable_params);
        params = with_note(
            lang,
            &params,
            &format!("{} {trainable}", S::Trainable.get(lang)),
        );
    }
    let setup = [
        format!("{} {}", T::Bands.get(lang), s.bands),
        format!(
            "{} {} × {} {}",
            T::Patch.get(lang),
            s.patch,
            s.patch,
            T::UnitPixels.get(lang)
        ),
        format!(
            "{} {}",
            T::Batch.get(lang),
            format::count(s.batch_per_gpu.into())
        ),
        i18n::precision_name(s.precision, lang).to_string(),
        i18n::optimizer_name(s.optimizer, lang).to_string(),
        format!(
            "cudnn.benchmark = {}",
            if s.cudnn_benchmark { "True" } else { "False" }
        ),
        params,
    ];
    let what = format!("{} · {scene} · {cards}", report.model_name);
    let mut out = vec![labelled(lang, T::Title.get(lang), &what)];
    out.extend(wrap(&setup.join(" · "), ""));
    out
}

/// Memory per GPU term by term with each term's share of the total, then the capacity,
/// the budget the headroom leaves and the largest batch.
fn memory(report: &Report, gpu_name: &str, headroom: f64, lang: Lang) -> Vec<String> {
    let m = &report.memory;
    let share = |bytes: f64| format::percent(bytes / m.total);
    let mut rows: Vec<Vec<String>> = i18n::memory_terms(m)
        .iter()
        .filter(|(_, bytes)| *bytes > 0.0)
        .map(|(term, bytes)| {
            vec![
                term.get(lang).to_string(),
                format::bytes(*bytes),
                share(*bytes),
            ]
        })
        .collect();
    rows.push(vec![
        T::TotalMemory.get(lang).into(),
        format::bytes(m.total),
        share(m.total),
    ]);
    let mut figures = vec![
        (
            S::AllocatedPeak.get(lang).to_string(),
            format::bytes(m.allocated_peak),
        ),
        (
            S::ReservedPeak.get(lang).to_string(),
            format::bytes(m.reserved_peak),
        ),
        (T::Capacity.get(lang).to_string(), format::bytes(m.capacity)),
        (
            with_note(lang, T::HeadroomLine.get(lang), &format::percent(headroom)),
            format::bytes(m.budget),
        ),
        (
            T::MaxBatch.get(lang).to_string(),
            format::count(report.max_batch.into()),
        ),
    ];
    if m.ecc_reserved > 0.0 {
        figures.push((
            X::EccReserved.get(lang).into(),
            format::bytes(m.ecc_reserved),
        ));
    }
    if m.offloaded_to_host > 0.0 {
        figures.push((
            S::Offloaded.get(lang).into(),
            format::bytes(m.offloaded_to_host),
        ));
    }
    // The figures under the terms, their values in the same column.
    rows.extend(
        figures
            .into_iter()
            .map(|(label, value)| vec![label, value, String::new()]),
    );
    let header = [String::new(), String::new(), S::Share.get(lang).into()];
    let mut out = vec![heading(&format!("{} — {gpu_name}", T::Memory.get(lang)))];
    out.extend(table("  ", &header, &rows, &[]));
    out
}

/// `label  value` lines, the values aligned.
fn key_values(pairs: &[(String, String)]) -> Vec<String> {
    let rows: Vec<Vec<String>> = pairs
        .iter()
        .map(|(k, v)| vec![k.clone(), v.clone()])
        .collect();
    let header = [String::new(), String::new()];
    table("  ", &header, &rows, &[1])
        .into_iter()
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// A label from the middle of a sentence as the start of a row.
fn capitalized(label: &str) -> String {
    let mut chars = label.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// One step on one card: its parts, what bounds it, throughput, epoch and run.
fn step(report: &Report, lang: Lang) -> Vec<String> {
    let perf = &report.perf;
    let t = &perf.time;
    let mut bound = i18n::bound_text(t.bound, lang).to_string();
    if t.bound == hsi_gpu_core::steptime::StepBound::Device {
        bound = with_note(lang, &bound, i18n::limiter_text(t.limiter, lang));
    }
    let input_rate = if t.input_samples_per_s.is_finite() {
        on_its_own(lang, &format::significant(t.input_samples_per_s))
    } else {
        "∞".into()
    };
    // The step's parts under it: the host's, the GPU's and the input's time per step, and
    // what the cards add.
    let part = |label: &str| format!("  {label}");
    let extras = i18n::added_by_cards(t)
        .map(|(label, s)| (part(&capitalized(label.get(lang))), format::duration(s)));
    let mut pairs = vec![
        (
            T::StepTime.get(lang).to_string(),
            format::duration(t.step_s),
        ),
        (part(S::HostCpu.get(lang)), format::duration(t.host_s)),
        (part(T::BoundGpu.get(lang)), format::duration(t.device_s)),
        (
            part(S::InputPipeline.get(lang)),
            with_note(lang, &format::duration(t.input_s), &input_rate),
        ),
    ];
    pairs.extend(extras);
    pairs.extend([
        (T::StepBoundBy.get(lang).to_string(), bound),
        (
            T::Throughput.get(lang).to_string(),
            format!("{}/s", format::significant(t.samples_per_s)),
        ),
        (
            T::EpochTime.get(lang).to_string(),
            format::duration(perf.epoch.epoch_s),
        ),
        (
            i18n::run_time_label(lang, perf.epoch.epochs),
            format::duration(perf.epoch.run_s),
        ),
    ]);
    let mut out = vec![heading(T::Speed.get(lang))];
    out.extend(key_values(&pairs));
    out
}

/// Tensor and pipeline parallelism, when the run uses them (below the step): the layout, the tensor-parallel
/// all-reduces, the bubble, and each stage's layers, memory, time and idle share.
fn parallel(report: &Report, lang: Lang) -> Vec<String> {
    let Some(line) = i18n::layout_line(lang, report) else {
        return Vec::new();
    };
    let mut out = vec![String::new()];
    out.extend(wrap(&line, "  "));
    let stages = &report.parallel.stages;
    if stages.len() < 2 {
        return out;
    }
    let header = [
        S::Stage.get(lang).to_string(),
        S::StageLayers.get(lang).into(),
        T::Params.get(lang).into(),
        T::Memory.get(lang).into(),
        T::FwdTime.get(lang).into(),
        T::BwdTime.get(lang).into(),
        S::Idle.get(lang).into(),
    ];
    let rows: Vec<Vec<String>> = stages
        .iter()
        .enumerate()
        .map(|(i, stage)| {
            vec![
                (i + 1).to_string(),
                format!(
                    "{} {}–{}",
                    stage.layers, stage.first_layer, stage.last_layer
                ),
                format::count(stage.params),
                format::bytes(stage.memory.total),
                format::duration(stage.forward_s),
                format::duration(stage.backward_s),
                format::percent(stage.idle_fraction),
            ]
        })
        .collect();
    out.push(String::new());
    out.extend(table("  ", &header, &rows, &[1]));
    out
}

/// Scaling over 1, 2, 4 and 8 cards (and the scenario's count) in the scenario's use of
/// the cards and topology; with more than one node, over 1, 2, 4, 8 and the most nodes
/// (and the scenario's count).
fn scaling(s: &Scenario, report: &Report, lang: Lang) -> Vec<String> {
    let scaling = &report.perf.scaling;
    let points = scaling.mode_curve(s.workload.mode);
    let title: String = match s.workload.mode {
        ParallelMode::ParallelExperiments => T::ParallelExperiments.get(lang).into(),
        // The data-parallel method: DDP, or the sharding's short name (ZeRO-2).
        ParallelMode::Ddp => [
            match s.sharding {
                Sharding::None => "DDP",
                other => i18n::sharding_name(other, lang)
                    .split([':', '：', ','])
                    .next()
                    .unwrap_or("DDP"),
            },
            i18n::interconnect_name(scaling.chosen, lang),
        ]
        .join(lang.comma()),
    };
    let shown = |p: &&ScalingPoint| [1, 2, 4, 8].contains(&p.cards) || p.cards == s.cards;
    let mark = |n: u32, here: bool| {
        if here {
            with_note(lang, &n.to_string(), S::ThisScenario.get(lang))
        } else {
            n.to_string()
        }
    };
    // The scenario's own row reads its share as the page does, tensor-parallel
    // all-reduces included (`StepTime::link_s`); the others have data-parallel ones only.
    let row = |n: u32, here: bool, p: &ScalingPoint| {
        let share = if here {
            report.perf.time.allreduce_share
        } else {
            p.allreduce_share
        };
        vec![
            mark(n, here),
            format::duration(p.step_s),
            format!("{}/s", format::significant(p.samples_per_s)),
            format::times(p.speedup),
            format::percent(p.efficiency),
            format::percent(share),
        ]
    };
    let columns = |first: T| {
        [
            first.get(lang).to_string(),
            T::StepTime.get(lang).into(),
            format!("{}/s", T::Throughput.get(lang)),
            T::Speedup.get(lang).into(),
            T::Efficiency.get(lang).into(),
            S::AllreduceShort.get(lang).into(),
        ]
    };
    let rows: Vec<Vec<String>> = points
        .iter()
        .filter(shown)
        .map(|p| row(p.cards, p.cards == s.cards && s.nodes <= 1, p))
        .collect();
    let mut out = vec![heading(&labelled(lang, T::Scaling.get(lang), &title))];
    out.extend(table("  ", &columns(T::Cards), &rows, &[]));
    if let Some(most) = scaling.nodes.last().map(|p| p.nodes) {
        let rows: Vec<Vec<String>> = scaling
            .nodes
            .iter()
            .filter(|p| [1, 2, 4, 8, most, s.nodes].contains(&p.nodes))
            .map(|p| row(p.nodes, p.nodes == s.nodes, p))
            .collect();
        out.push(String::new());
        out.extend(table("  ", &columns(T::Nodes), &rows, &[]));
    }
    out
}

/// The box's total cost, per GPU-hour, and one experiment and one sweep on the box
/// beside renting the same GPU-hours.
fn cost(report: &Report, lang: Lang) -> Vec<String> {
    let c = &report.perf.cost;
    let priced = |usd: f64| {
        if c.card_price_known {
            c.money(usd)
        } else {
            X::EnterPrice.get(lang).to_string()
        }
    };
    let rented = |usd: f64| {
        if c.cloud_rate_known {
            c.money(usd)
        } else {
            X::EnterRate.get(lang).to_string()
        }
    };
    let header = [
        String::new(),
        T::OwnBox.get(lang).into(),
        T::Cloud.get(lang).into(),
    ];
    let rows = vec![
        vec![
            T::Tco.get(lang).into(),
            priced(c.tco_usd),
            rented(c.cloud_usd_same_usage),
        ],
        vec![
            T::PerGpuHour.get(lang).into(),
            priced(c.usd_per_gpu_hour),
            rented(c.cloud_usd_per_gpu_hour),
        ],
        vec![
            T::PerExperiment.get(lang).into(),
            priced(c.usd_per_experiment),
            rented(c.cloud_usd_per_experiment),
        ],
        vec![
            T::PerSweep.get(lang).into(),
            priced(c.sweep_usd),
            rented(c.cloud_sweep_usd),
        ],
    ];
    let mut out = vec![heading(T::Cost.get(lang))];
    out.extend(table("  ", &header, &rows, &[]));
    out
}

/// The best lever in words, what limits the scenario, and the levers that gain more
/// than 2 % (or make it fit), fastest first.
fn levers(report: &Report, lang: Lang) -> Vec<String> {
    let Some(base) = report.lever_baseline else {
        return Vec::new();
    };
    let mut out = vec![heading(X::LeversTitle.get(lang))];
    let mut said = vec![
        best_lever_text(report, lang),
        limit_sentence(lang, limit_name(base.limit, lang)),
    ];
    said.extend(
        report
            .cudnn_benchmark_speedup
            .map(|s| cudnn_benchmark_sentence(lang, s)),
    );
    out.extend(wrap(&i18n::paragraph(lang, &said), "  "));
    let pays = |o: &&LeverOutcome| o.speedup.map_or(o.fits && !base.fits, |s| s > 1.02);
    let mut paying: Vec<&LeverOutcome> = report.levers.iter().filter(pays).collect();
    paying.sort_by(|a, b| {
        b.speedup
            .unwrap_or(0.0)
            .total_cmp(&a.speedup.unwrap_or(0.0))
    });
    if paying.is_empty() {
        return out;
    }
    let header = [
        X::Lever.get(lang).to_string(),
        X::Speedup.get(lang).into(),
        X::TimeToResult.get(lang).into(),
        X::LargestBatch.get(lang).into(),
        X::LimitsNext.get(lang).into(),
    ];
    let rows: Vec<Vec<String>> = paying
        .iter()
        .map(|o| {
            vec![
                lever_label(o.lever, o.factor, lang),
                o.speedup.map_or_else(|| "—".into(), format::times),
                o.time_to_result_s
                    .map_or_else(|| X::DoesNotFit.get(lang).to_string(), format::duration),
                format::count(o.largest_batch.into()),
                limit_name(o.limit, lang).into(),
            ]
        })
        .collect();
    out.push(String::new());
    out.push(format!(
        "  {}{}",
        S::OtherLevers.get(lang),
        lang.colon().trim_end()
    ));
    out.extend(table("  ", &header, &rows, &[4]));
    out
}
