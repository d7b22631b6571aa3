//! What the comparison shows: the side-by-side table with best marks, the charts, the
//! decision with its flips, the fit map, and import errors on their line.

use hsi_gpu_core::compare::decision::Decision;
use hsi_gpu_core::compare::import::ImportError;
use hsi_gpu_core::compare::sensitivity::default_fit_grid;
use hsi_gpu_core::compare::{Comparison, ComparisonReport, Metric, OptionOutcome};
use hsi_gpu_core::cost::Money;
use hsi_gpu_core::scenario::FieldError;
use hsi_gpu_core::whatifs::LeverRow;
use hsi_gpu_core::{format, gpu};
use yew::prelude::*;

use super::chart::CompareBars;
use super::text::{
    condition_phrase, flip_sentence, limit_prefix, metric_name, metric_text, option_name, C,
};
use crate::components::thesis::text::{chassis_text, lever_label, lever_name};
use crate::i18n::problems::{field_error_text, import_error_text};
use crate::i18n::Lang;

/// A table row of plain cells after a row header.
fn plain_row(header: &str, cells: Vec<String>, class: Option<&'static str>) -> Html {
    html! {
        <tr class={class}>
            <th scope="row">{ header }</th>
            { for cells.into_iter().map(|c| html! { <td>{ c }</td> }) }
        </tr>
    }
}

fn labels(report: &ComparisonReport, lang: Lang) -> Vec<AttrValue> {
    report
        .options
        .iter()
        .enumerate()
        .map(|(i, o)| option_name(&o.label, i, lang).into())
        .collect()
}

/// A cell of the column whose option box holds a value that is not used: no figures (they
/// would be for the last valid value, which the box no longer shows).
fn awaiting_cell(testid: Option<String>, lang: Lang) -> Html {
    html! {
        <td class="awaiting" data-testid={testid} title={C::AwaitsValidValue.get(lang)}>{ "—" }</td>
    }
}

/// The side-by-side table under the option editors; `awaiting` is the option whose column
/// waits for a valid value in one of its boxes.
pub(super) fn table(
    report: &ComparisonReport,
    levers: &[LeverRow],
    lang: Lang,
    money: Money,
    editors: Html,
    awaiting: Option<usize>,
) -> Html {
    let fits_row = report.options.iter().enumerate().map(|(i, o)| match &o.result {
        _ if awaiting == Some(i) => awaiting_cell(Some(format!("cell-fits-{i}")), lang),
        Some(r) => html! {
            <td data-testid={format!("cell-fits-{i}")}>
                { if r.fits { C::Fits.get(lang) } else { C::DoesNotFit.get(lang) } }
                { " · " }{ format::bytes(r.memory_per_gpu_bytes) }
            </td>
        },
        None => html! {
            <td data-testid={format!("cell-fits-{i}")} class="error">
                { C::CannotEstimate.get(lang) }
                <ul>{ for o.errors.iter().map(|e: &FieldError| html! { <li>{ field_error_text(e, lang) }</li> }) }</ul>
            </td>
        },
    });
    let complexity_row = report.options.iter().enumerate().map(|(i, o)| {
        if awaiting == Some(i) {
            return awaiting_cell(Some(format!("cell-ops-{i}")), lang);
        }
        let text = o.result.as_ref().map_or_else(String::new, |r| {
            let c = &r.complexity;
            format!(
                "{} × {} · {} · {} {} · {}",
                c.cards,
                r.gpu_name,
                if c.nccl {
                    C::Nccl.get(lang)
                } else {
                    C::NoNccl.get(lang)
                },
                C::Psu.get(lang),
                format::si(c.psu_watts, "W"),
                chassis_text(&c.chassis, lang),
            )
        });
        html! { <td data-testid={format!("cell-ops-{i}")}>{ text }</td> }
    });
    let price_unknown = report
        .options
        .iter()
        .any(|o| o.result.as_ref().is_some_and(|r| r.tco_usd.is_none()));
    html! {
        <div class="table-scroll">
            <table class="compare-table" data-testid="compare-table">
                <thead>
                    <tr><th scope="col"></th>{ editors }</tr>
                </thead>
                <tbody>
                    <tr><th scope="row">{ C::Fits.get(lang) }</th>{ for fits_row }</tr>
                    { for report.rows.iter().map(|row| {
                        let name = row.metric.csv_name();
                        html! {
                            <tr data-testid={format!("row-{name}")}>
                                <th scope="row">{ metric_name(row.metric, lang) }</th>
                                { for row.values.iter().enumerate().map(|(i, v)| {
                                    if awaiting == Some(i) {
                                        return awaiting_cell(Some(format!("cell-{name}-{i}")), lang);
                                    }
                                    let best = row.best.contains(&i);
                                    let prefix = report.options[i].result.as_ref().map_or("", |r| match row.metric {
                                        Metric::LargestPatch => limit_prefix(r.largest_patch),
                                        Metric::LargestBands => limit_prefix(r.largest_bands),
                                        _ => "",
                                    });
                                    html! {
                                        <td class={classes!("num", best.then_some("best"))}
                                            data-testid={format!("cell-{name}-{i}")}
                                            title={best.then(|| C::Best.get(lang))}>
                                            { prefix }{ metric_text(row.metric, *v, lang, money) }{ if best { " ★" } else { "" } }
                                        </td>
                                    }
                                }) }
                            </tr>
                        }
                    }) }
                    <tr><th scope="row">{ C::Complexity.get(lang) }</th>{ for complexity_row }</tr>
                    { lever_rows(levers, awaiting, lang, money) }
                </tbody>
            </table>
            if price_unknown {
                <p class="help">{ C::PriceUnknown.get(lang) }</p>
            }
        </div>
    }
}

/// A row per lever option (the lever table of each option side by side): speed-up, time
/// to a result and cost per experiment at the card's own price; ★ on the options the lever
/// speeds up most, where that is a real gain (the core's `best`). A lever that does not
/// apply to an option (e.g. no better link) reads "—" with why.
fn lever_rows(rows: &[LeverRow], awaiting: Option<usize>, lang: Lang, money: Money) -> Html {
    let cell = |r: &LeverRow, i: usize| match r.outcomes[i] {
        _ if awaiting == Some(i) => awaiting_cell(None, lang),
        None => html! {
            <td class="not-applicable" title={C::LeverNotApplicable.get(lang)}>{ "—" }</td>
        },
        Some(o) => html! {
            <td>{ format!(
                "{} · {} · {}{}",
                o.speedup.map_or_else(String::new, format::times),
                o.time_to_result_s.map_or_else(String::new, format::duration),
                o.usd_per_experiment.map_or_else(String::new, |usd| money.text(usd)),
                if r.best.contains(&i) { " ★" } else { "" }
            ) }</td>
        },
    };
    html! {
        <>
            <tr data-testid="compare-levers"><th scope="rowgroup" colspan="9" title={C::LeverRowsHelp.get(lang)}>{ C::LeverRows.get(lang) }</th></tr>
            { for rows.iter().map(|r| {
                let name = r.factor.map_or_else(|| lever_name(r.lever, lang).to_string(), |f| lever_label(r.lever, f, lang));
                html! {
                    <tr>
                        <th scope="row">{ name }</th>
                        { for (0..r.outcomes.len()).map(|i| cell(r, i)) }
                    </tr>
                }
            }) }
        </>
    }
}

pub(super) fn charts(report: &ComparisonReport, lang: Lang, money: Money) -> Html {
    let row = |m: Metric| report.rows.iter().find(|r| r.metric == m);
    let chart = |id: &'static str, title: C, metric: Metric, reference: Option<f64>| {
        let Some(r) = row(metric) else {
            return html! {};
        };
        let texts: Vec<AttrValue> = r
            .values
            .iter()
            .map(|v| metric_text(metric, *v, lang, money).into())
            .collect();
        html! {
            { CompareBars { id: id.into(), title: title.get(lang).into(), labels: labels(report, lang),
                values: r.values.clone(), texts, best: r.best.clone(), reference, lang }.view() }
        }
    };
    html! {
        <div class="compare-charts">
            { chart("compare-memory", C::ChartMemory, Metric::MemoryUtilization, Some(1.0)) }
            { chart("compare-time", C::ChartTime, Metric::SweepTime, None) }
            { chart("compare-cost", C::ChartCost, Metric::Tco, None) }
        </div>
    }
}

pub(super) fn decision_view(
    d: &Decision,
    options: &[OptionOutcome],
    lang: Lang,
    money: Money,
) -> Html {
    let name = |i: usize| {
        options
            .get(i)
            .map_or("?".into(), |o| option_name(&o.label, i, lang))
    };
    let yes_no = |b: Option<bool>| match b {
        Some(true) => C::Yes.get(lang),
        Some(false) => C::No.get(lang),
        None => C::Unknown.get(lang),
    };
    let recommended = match d.recommended {
        Some(i) => html! {
            <p class="verdict" data-testid="recommended">
                { C::Recommended.get(lang) }{ lang.colon() }<strong>{ name(i) }</strong>
                { d.assessments[i].as_ref().and_then(|a| a.time_to_result_s).map(|t|
                    format!(" · {} {}", C::TimeToResult.get(lang), format::duration(t))).unwrap_or_default() }
            </p>
        },
        None => {
            html! { <p class="verdict" data-testid="recommended">{ C::NothingEligible.get(lang) }</p> }
        }
    };
    let header: Vec<String> = [
        C::Runs,
        C::TimeToResult,
        C::MetricTco,
        C::WithinBudget,
        C::MetricOps,
        C::WithinOps,
        C::Eligible,
    ]
    .iter()
    .map(|c| c.get(lang).to_string())
    .collect();
    html! {
        <>
            { recommended }
            <div class="table-scroll">
                <table data-testid="assessments">
                    <thead>{ plain_row("", header, None) }</thead>
                    <tbody>
                        { for d.assessments.iter().enumerate().filter_map(|(i, a)| a.as_ref().map(|a| plain_row(
                            &name(i),
                            vec![
                                a.runs.to_string(),
                                a.time_to_result_s.map_or_else(|| C::DoesNotFit.get(lang).to_string(), format::duration),
                                a.tco_usd.map_or_else(|| C::Unknown.get(lang).to_string(), |usd| money.text(usd)),
                                yes_no(a.within_budget).to_string(),
                                format!("{:.1}", a.ops_hours_per_month),
                                yes_no(Some(a.within_ops)).to_string(),
                                yes_no(Some(a.eligible)).to_string(),
                            ],
                            (d.recommended == Some(i)).then_some("best"),
                        ))) }
                    </tbody>
                </table>
            </div>
            <h4>{ C::FlipsTitle.get(lang) }</h4>
            if d.flips.is_empty() {
                <p>{ C::NoFlips.get(lang) }</p>
            } else {
                <ul data-testid="flips">
                    { for d.flips.iter().map(|f| {
                        let lost: Vec<String> = f.no_longer_fit.iter().map(|&i| name(i)).collect();
                        let lost: Vec<&str> = lost.iter().map(String::as_str).collect();
                        let condition = condition_phrase(&f.condition, lang, money);
                        let recommended = f.recommended.map(name);
                        html! { <li>{ flip_sentence(&condition, recommended.as_deref(), &lost, lang) }</li> }
                    }) }
                </ul>
            }
        </>
    }
}

pub(super) fn heat_map(
    comparison: &Comparison,
    report: &ComparisonReport,
    selected: usize,
    lang: Lang,
) -> Html {
    let Some(option) = comparison.options.get(selected) else {
        return html! {};
    };
    let s = &option.scenario;
    let limits = report
        .options
        .get(selected)
        .and_then(|o| o.result.as_ref())
        .map(|r| {
            let colon = lang.colon();
            format!(
                "{}{colon}{}{} px · {}{colon}{}{} · {}{colon}{}",
                C::Patch.get(lang),
                limit_prefix(r.largest_patch),
                r.largest_patch
                    .value()
                    .map_or("—".into(), |v| v.to_string()),
                C::Bands.get(lang),
                limit_prefix(r.largest_bands),
                r.largest_bands
                    .value()
                    .map_or("—".into(), |v| v.to_string()),
                C::MetricMaxBatch.get(lang),
                format::count(r.max_batch.into()),
            )
        });
    let grid = gpu::gpu_by_id(&s.gpu).and_then(|g| default_fit_grid(s, g));
    html! {
        <>
            if let Some(limits) = limits {
                <p data-testid="limits">{ limits }</p>
            }
            <p class="help">{ C::HeatHelp.get(lang) }</p>
            { match grid {
                Some(grid) => html! {
                    <div class="table-scroll">
                        <table class="heat" data-testid="heat-map">
                            <thead><tr>
                                <th scope="col">{ format!("{} \\ {}", C::Patch.get(lang), C::Bands.get(lang)) }</th>
                                { for grid.bands.iter().map(|b| html! { <th scope="col">{ *b }</th> }) }
                            </tr></thead>
                            <tbody>
                                { for grid.patches.iter().zip(&grid.cells).map(|(p, row)| html! {
                                    <tr>
                                        <th scope="row">{ *p }</th>
                                        { for row.iter().map(|cell| {
                                            // Classes, not inline styles: the page runs under a strict CSP.
                                            let (text, class) = match cell {
                                                Some(u) if *u <= 0.8 => (format::percent(*u), "heat-fits"),
                                                Some(u) if *u <= 1.0 => (format::percent(*u), "heat-tight"),
                                                Some(u) => (format::percent(*u), "heat-over"),
                                                None => ("·".to_string(), "heat-na"),
                                            };
                                            html! { <td class={class}>{ text }</td> }
                                        }) }
                                    </tr>
                                }) }
                            </tbody>
                        </table>
                    </div>
                },
                None => html! { <p>{ C::HeatNa.get(lang) }</p> },
            } }
        </>
    }
}

pub(super) fn import_error_view(e: &ImportError, text: &str, lang: Lang) -> Html {
    let line_text = e
        .line
        .and_then(|l| text.lines().nth(l.saturating_sub(1)))
        .unwrap_or("");
    html! {
        <li>
            { import_error_text(e, text, lang) }
            if !line_text.is_empty() {
                <br /><code>{ format!("{:>4} | {}", e.line.unwrap_or(0), line_text) }</code>
            }
        </li>
    }
}
