//! `hsi-gpu options --summary`: the comparison as tables (an option per row, the page's
//! rows as columns, ★ on the best of each), the recommendation and when it changes, and
//! the lever that helps each option most.

use hsi_gpu_core::compare::{ComparisonReport, Metric};
use hsi_gpu_core::cost::Money;
use hsi_gpu_core::format;
use hsi_gpu_core::whatifs::LeverRow;
use hsi_gpu_i18n::compare::{
    condition_phrase, flip_sentence, limit_prefix, metric_name, metric_text, C,
};
use hsi_gpu_i18n::summary::{labelled, S};
use hsi_gpu_i18n::whatifs::{chassis_text, lever_label};
use hsi_gpu_i18n::{Lang, T};

use super::heading;
use super::layout::{bullet, table, wrap};

/// The page's rows, grouped into tables that fit a terminal.
const GROUPS: [(T, &[Metric]); 3] = [
    (
        T::Memory,
        &[
            Metric::MemoryUtilization,
            Metric::MaxBatch,
            Metric::LargestPatch,
            Metric::LargestBands,
        ],
    ),
    (
        T::Speed,
        &[Metric::SamplesPerS, Metric::RunTime, Metric::SweepTime],
    ),
    (
        T::Cost,
        &[
            Metric::Tco,
            Metric::CostPerExperiment,
            Metric::Power,
            Metric::Cards,
            Metric::OpsHours,
        ],
    ),
];

/// The comparison in a screen or two: its tables, the decision and the levers.
/// Money in `money`'s currency (`Comparison::money`, as the page shows it).
pub fn options_summary(
    report: &ComparisonReport,
    levers: &[LeverRow],
    lang: Lang,
    money: Money,
) -> String {
    let names: Vec<&str> = report.options.iter().map(|o| o.label.as_str()).collect();
    let count = format!("{} {}", names.len(), S::Options.get(lang));
    let mut out = vec![labelled(lang, C::Title.get(lang), &count)];
    for (title, metrics) in GROUPS {
        out.push(heading(title.get(lang)));
        out.extend(group(report, metrics, lang, money));
    }
    out.extend(decision(report, &names, lang, money));
    out.extend(best_levers(levers, &names, lang, money));
    // What stops an option: no estimate, or cards that do not fit one workstation (the
    // recommendation does not weigh the chassis, so it is said here).
    let errors: Vec<String> = report
        .options
        .iter()
        .filter_map(|o| match &o.result {
            None => {
                let why: Vec<String> = o.errors.iter().map(ToString::to_string).collect();
                let said = labelled(lang, C::CannotEstimate.get(lang), &why.join("; "));
                Some(labelled(lang, &o.label, &said))
            }
            Some(r) if !r.complexity.chassis.fits() => Some(labelled(
                lang,
                &o.label,
                &chassis_text(&r.complexity.chassis, lang),
            )),
            Some(_) => None,
        })
        .collect();
    if !errors.is_empty() {
        out.push(heading(T::Warnings.get(lang)));
        for e in errors {
            out.extend(bullet(&e, "  "));
        }
    }
    out.join("\n")
}

/// One table: an option per row, the fit first in the memory table, ★ on each best.
fn group(report: &ComparisonReport, metrics: &[Metric], lang: Lang, money: Money) -> Vec<String> {
    let memory_table = metrics.contains(&Metric::MemoryUtilization);
    let mut header = vec![String::new()];
    if memory_table {
        header.push(C::Fits.get(lang).into());
    }
    header.extend(metrics.iter().map(|m| metric_name(*m, lang).to_string()));
    let rows: Vec<Vec<String>> = report
        .options
        .iter()
        .enumerate()
        .map(|(i, option)| {
            let mut row = vec![option.label.clone()];
            let Some(result) = &option.result else {
                row.push(C::CannotEstimate.get(lang).into());
                return row;
            };
            if memory_table {
                let fits = if result.fits { C::Fits } else { C::DoesNotFit };
                row.push(fits.get(lang).into());
            }
            for metric in metrics {
                let Some(r) = report.rows.iter().find(|r| r.metric == *metric) else {
                    row.push(C::NoFigure.get(lang).into());
                    continue;
                };
                let prefix = match metric {
                    Metric::LargestPatch => limit_prefix(result.largest_patch),
                    Metric::LargestBands => limit_prefix(result.largest_bands),
                    _ => "",
                };
                let star = if r.best.contains(&i) { " ★" } else { "" };
                row.push(format!(
                    "{prefix}{}{star}",
                    metric_text(*metric, r.values[i], lang, money)
                ));
            }
            row
        })
        .collect();
    let text: Vec<usize> = if memory_table { vec![1] } else { Vec::new() };
    table("  ", &header, &rows, &text)
}

/// The recommendation for the decision's inputs, and each computed condition that
/// changes it.
fn decision(report: &ComparisonReport, names: &[&str], lang: Lang, money: Money) -> Vec<String> {
    let d = &report.decision;
    let name = |i: usize| names.get(i).copied().unwrap_or("?");
    let mut out = vec![heading(C::Decision.get(lang))];
    let said = match d.recommended {
        Some(i) => {
            let time = d.assessments[i]
                .as_ref()
                .and_then(|a| a.time_to_result_s)
                .map(|t| format!(" · {} {}", C::TimeToResult.get(lang), format::duration(t)))
                .unwrap_or_default();
            labelled(
                lang,
                C::Recommended.get(lang),
                &format!("{}{time}", name(i)),
            )
        }
        None => C::NothingEligible.get(lang).into(),
    };
    out.extend(wrap(&said, "  "));
    out.push(
        format!("  {}", labelled(lang, C::FlipsTitle.get(lang), ""))
            .trim_end()
            .to_string(),
    );
    if d.flips.is_empty() {
        out.extend(wrap(C::NoFlips.get(lang), "    "));
    }
    for f in &d.flips {
        let lost: Vec<&str> = f.no_longer_fit.iter().map(|&i| name(i)).collect();
        let condition = condition_phrase(&f.condition, lang, money);
        let sentence = flip_sentence(&condition, f.recommended.map(name), &lost, lang);
        out.extend(bullet(&sentence, "    "));
    }
    out
}

/// Per option, the lever row with its largest speed-up: speed-up, time to a result and
/// cost per experiment at the card's own price.
fn best_levers(rows: &[LeverRow], names: &[&str], lang: Lang, money: Money) -> Vec<String> {
    let header = [
        String::new(),
        S::BestLever.get(lang).into(),
        T::Speedup.get(lang).into(),
        C::TimeToResult.get(lang).into(),
        C::MetricPerExperiment.get(lang).into(),
    ];
    let table_rows: Vec<Vec<String>> = names
        .iter()
        .enumerate()
        .filter_map(|(i, name)| {
            let (row, outcome) = rows
                .iter()
                .filter_map(|r| r.outcomes[i].map(|o| (r, o)))
                .filter(|(_, o)| o.speedup.is_some())
                .max_by(|(_, a), (_, b)| {
                    a.speedup
                        .unwrap_or(0.0)
                        .total_cmp(&b.speedup.unwrap_or(0.0))
                })?;
            Some(vec![
                name.to_string(),
                lever_label(row.lever, outcome.factor, lang),
                outcome.speedup.map_or_else(String::new, format::times),
                outcome
                    .time_to_result_s
                    .map_or_else(String::new, format::duration),
                outcome
                    .usd_per_experiment
                    .map_or_else(String::new, |usd| money.text(usd)),
            ])
        })
        .collect();
    if table_rows.is_empty() {
        return Vec::new();
    }
    let mut out = vec![heading(C::LeverRows.get(lang))];
    out.extend(table("  ", &header, &table_rows, &[1]));
    out
}
