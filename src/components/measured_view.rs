//! Predicted versus measured: the user loads the measurement JSON that tools/measure.py
//! writes; each figure is set beside the estimate for the scenario as measured, with the
//! error. "Calibrate" fits the scenario's constants to the measurements
//! (`measurement::calibrate` in the core) and keeps them in the scenario, so they travel
//! in the link and storage and show under Assumptions.

use std::rc::Rc;

use hsi_gpu_core::measurement::{self, CalibrationReport, Measurement, PredictedVsMeasured, Term};
use hsi_gpu_core::{format, FieldError, Scenario};
use yew::prelude::*;

use crate::i18n::{self, Lang, T};
use crate::platform::files;
use crate::state::Action;
use crate::Store;

/// More than a lab sets side by side; bounds the work done on each slider move.
const MAX_MEASUREMENTS: usize = 12;

/// Measurements loaded so far, kept while the user changes the scenario.
#[derive(Clone, Debug, Default, PartialEq)]
struct Loaded {
    /// (file name or "pasted", measurement); a file loaded again replaces its entry.
    items: Vec<(String, Measurement)>,
    /// The last text that could not be used, with its source.
    error: Option<(String, FieldError)>,
}

enum Load {
    Text { source: String, text: String },
    Clear,
}

impl Reducible for Loaded {
    type Action = Load;

    fn reduce(self: Rc<Self>, action: Load) -> Rc<Self> {
        let Load::Text { source, text } = action else {
            return Rc::new(Loaded::default());
        };
        let mut next = (*self).clone();
        next.error = None;
        let count = next.items.len();
        match measurement::measurement_from_json(&text) {
            Err(e) => next.error = Some((source, e)),
            Ok(m) => match next.items.iter_mut().find(|(s, _)| *s == source) {
                Some(slot) => slot.1 = m,
                None if count < MAX_MEASUREMENTS => next.items.push((source, m)),
                None => {
                    let error = FieldError {
                        field: "(measurements)".into(),
                        value: format!("{count} loaded"),
                        allowed: format!("at most {MAX_MEASUREMENTS}: clear them first"),
                    };
                    next.error = Some((source, error));
                }
            },
        }
        Rc::new(next)
    }
}

/// The last calibration: the report and the scenario it started from (for undo).
#[derive(PartialEq)]
struct Calibration {
    before: Scenario,
    report: CalibrationReport,
}

/// A term's figure in its unit: bytes, seconds or a batch count.
fn term_value(name: &str, value: f64) -> String {
    if name.ends_with("_bytes") {
        format::bytes(value)
    } else if name.ends_with("_s") {
        format::duration(value)
    } else {
        format::count(value as u64)
    }
}

/// A constant's value: bytes for byte counts, else a plain number.
fn constant_value(field: &str, value: f64) -> String {
    if field.ends_with("_bytes") {
        format::bytes(value)
    } else if value != 0.0 && value.abs() < 1e-3 {
        // Seconds per op and per launch: "2.5e-6" as the assumptions show them, where
        // fixed decimals would read 0.000003 (`{:e}` would cost the page 1 kB).
        let exponent = value.abs().log10().floor() as i32;
        let mantissa = value / 10f64.powi(exponent);
        format!("{}e{exponent}", format::significant(mantissa))
    } else {
        format::significant(value)
    }
}

/// Signed error in percent; `None` when the measured figure is 0.
fn error_text(error_pct: Option<f64>) -> String {
    error_pct.map_or("–".into(), |e| format!("{e:+.1} %"))
}

fn field_error_view(e: &FieldError, lang: Lang) -> Html {
    html! {
        <>
            <code>{ &e.field }</code>{ " = " }<code>{ &e.value }</code>
            { " — " }{ i18n::allowed_sentence(lang, &e.allowed) }
        </>
    }
}

fn term_row(t: &Term, lang: Lang) -> Html {
    // Far off: more than a quarter away from the measurement either way.
    let far = t.error_pct.is_some_and(|e| e.abs() > 25.0);
    html! {
        <tr data-term={t.name.clone()}>
            <th scope="row">{ i18n::measured_term_label(&t.name, lang) }</th>
            <td class="num">{ term_value(&t.name, t.predicted) }</td>
            <td class="num">{ term_value(&t.name, t.measured) }</td>
            <td class={classes!("num", far.then_some("far"))}>{ error_text(t.error_pct) }</td>
        </tr>
    }
}

fn comparison_view(source: &str, m: &Measurement, c: &PredictedVsMeasured, lang: Lang) -> Html {
    let device = m.device.gpu_name.as_deref().unwrap_or("?");
    html! {
        <div class="measured-case" data-testid="measured-case">
            <div class="table-scroll">
                <table>
                    <caption>{ i18n::measured_caption(lang, source, device, c.batch, &c.model, &c.gpu) }</caption>
                    <thead><tr>
                        <th scope="col">{ T::MeasuredFigure.get(lang) }</th>
                        <th scope="col" class="num">{ T::Estimated.get(lang) }</th>
                        <th scope="col" class="num">{ T::MeasuredValue.get(lang) }</th>
                        <th scope="col" class="num">{ T::ErrorPct.get(lang) }</th>
                    </tr></thead>
                    <tbody>{ for c.terms.iter().map(|t| term_row(t, lang)) }</tbody>
                </table>
            </div>
            if c.terms.is_empty() {
                <p>{ T::NothingToCompare.get(lang) }</p>
            }
            if !c.warnings.is_empty() {
                <ul class="notes">
                    { for c.warnings.iter().map(|n| html! { <li>{ i18n::note_text(n, lang) }</li> }) }
                </ul>
            }
        </div>
    }
}

fn calibration_view(c: &Calibration, lang: Lang, on_undo: Callback<MouseEvent>) -> Html {
    let r = &c.report;
    let before = measurement::mean_abs_errors(&r.before);
    let after = measurement::mean_abs_errors(&r.after);
    html! {
        <div class="calibration" data-testid="calibration">
            <h3>{ T::Calibrated.get(lang) }</h3>
            <p class="help">{ T::CalibratedHelp.get(lang) }</p>
            <div class="table-scroll">
                <table data-testid="fitted">
                    <thead><tr>
                        <th scope="col">{ T::Constant.get(lang) }</th>
                        <th scope="col" class="num">{ T::Before.get(lang) }</th>
                        <th scope="col" class="num">{ T::After.get(lang) }</th>
                        <th scope="col" class="num">{ T::FromMeasurements.get(lang) }</th>
                    </tr></thead>
                    <tbody>
                        { for r.fitted.iter().map(|f| html! {
                            <tr data-field={f.field.clone()}>
                                <th scope="row" title={f.how.clone()}>{ i18n::field_label(&f.field, lang) }</th>
                                <td class="num">{ constant_value(&f.field, f.before) }</td>
                                <td class="num">{ constant_value(&f.field, f.after) }</td>
                                <td class="num">{ f.measurements }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
            if !r.not_fitted.is_empty() {
                <ul class="notes" data-testid="not-fitted">
                    { for r.not_fitted.iter().map(|n| html! {
                        <li>{ i18n::not_fitted_sentence(lang, &i18n::field_label(&n.field, lang), &n.why) }</li>
                    }) }
                </ul>
            }
            <div class="table-scroll">
                <table data-testid="calibration-errors">
                    <caption>{ T::MeanErrorCaption.get(lang) }</caption>
                    <thead><tr>
                        <th scope="col">{ T::MeasuredFigure.get(lang) }</th>
                        <th scope="col" class="num">{ T::Before.get(lang) }</th>
                        <th scope="col" class="num">{ T::After.get(lang) }</th>
                    </tr></thead>
                    <tbody>
                        { for before.iter().map(|(name, error)| {
                            let later = after.iter().find(|(n, _)| n == name).map(|(_, e)| *e);
                            html! {
                                <tr data-term={name.clone()}>
                                    <th scope="row">{ i18n::measured_term_label(name, lang) }</th>
                                    <td class="num">{ format!("{error:.1} %") }</td>
                                    <td class="num">{ later.map_or("–".into(), |e| format!("{e:.1} %")) }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
            <button type="button" data-testid="undo-calibration" onclick={on_undo}>{ T::UndoCalibration.get(lang) }</button>
        </div>
    }
}

/// The measured-vs-estimated panel with its state (files loaded, text pasted, the last
/// calibration), drawn by a hook of the app rather than a component: it follows the
/// store, so it was drawn on every change anyway.
#[hook]
pub fn use_measured_view(store: &Store) -> Html {
    let store = store.clone();
    let lang = store.lang;
    let loaded = use_reducer_eq(Loaded::default);
    let pasted = use_state(String::new);
    let calibration = use_state(|| None::<Rc<Calibration>>);
    let calibrate_error = use_state(|| None::<FieldError>);
    let comparisons = use_memo(
        (store.scenario.clone(), loaded.items.clone()),
        |(s, items)| {
            items
                .iter()
                .map(|(_, m)| measurement::compare(s, m))
                .collect::<Vec<_>>()
        },
    );

    let on_files = {
        let load = loaded.dispatcher();
        Callback::from(move |e: Event| {
            let load = load.clone();
            if let Some(target) = e.target() {
                files::read_chosen_files(target.into(), move |source, text| {
                    load.dispatch(Load::Text { source, text })
                });
            }
        })
    };
    let on_paste = {
        let pasted = pasted.clone();
        Callback::from(move |e: InputEvent| {
            pasted.set(e.target().map(|t| files::value_of(&t)).unwrap_or_default())
        })
    };
    let on_load_pasted = {
        let (load, pasted) = (loaded.dispatcher(), pasted.clone());
        Callback::from(move |_: MouseEvent| {
            load.dispatch(Load::Text {
                source: T::Pasted.get(lang).into(),
                text: (*pasted).clone(),
            })
        })
    };
    let on_calibrate = {
        let (store, loaded) = (store.clone(), loaded.clone());
        let (calibration, calibrate_error) = (calibration.clone(), calibrate_error.clone());
        Callback::from(move |_: MouseEvent| {
            let measurements: Vec<Measurement> =
                loaded.items.iter().map(|(_, m)| m.clone()).collect();
            match measurement::calibrate(&store.scenario, &measurements) {
                Ok((calibrated, report)) => {
                    calibration.set(Some(Rc::new(Calibration {
                        before: store.scenario.clone(),
                        report,
                    })));
                    calibrate_error.set(None);
                    store.dispatch(Action::Replace(Box::new(calibrated)));
                }
                Err(e) => calibrate_error.set(Some(e)),
            }
        })
    };
    let on_undo = {
        let (store, calibration) = (store.clone(), calibration.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(c) = &*calibration {
                store.dispatch(Action::Replace(Box::new(c.before.clone())));
            }
            calibration.set(None);
        })
    };
    let on_clear = {
        let load = loaded.dispatcher();
        let (calibration, calibrate_error) = (calibration.clone(), calibrate_error.clone());
        Callback::from(move |_: MouseEvent| {
            load.dispatch(Load::Clear);
            calibration.set(None);
            calibrate_error.set(None);
        })
    };

    let can_calibrate = loaded.items.iter().any(|(_, m)| !m.dry_run);
    html! {
        <section class="panel view measured" data-testid="measured">
            <h2>{ T::Measured.get(lang) }</h2>
            <p class="help">{ T::MeasuredHelp.get(lang) }</p>
            <div class="measured-inputs">
                <label>
                    { T::LoadMeasurements.get(lang) }{ " " }
                    <input type="file" accept=".json,application/json" multiple=true
                        data-testid="measurement-file" onchange={on_files} />
                </label>
                <textarea rows="3" data-testid="measurement-text" aria-label={T::PasteMeasurement.get(lang)}
                    placeholder={T::PasteMeasurement.get(lang)} value={(*pasted).clone()} oninput={on_paste} />
                <div class="measured-actions">
                    <button type="button" data-testid="measurement-load" onclick={on_load_pasted}>{ T::LoadPasted.get(lang) }</button>
                    if !loaded.items.is_empty() {
                        <button type="button" data-testid="calibrate" disabled={!can_calibrate}
                            title={T::CalibrateHelp.get(lang)} onclick={on_calibrate}>{ T::Calibrate.get(lang) }</button>
                        <button type="button" data-testid="measurements-clear" onclick={on_clear}>{ T::ClearMeasurements.get(lang) }</button>
                    }
                </div>
            </div>
            if let Some((source, e)) = &loaded.error {
                <p class="field-error" role="alert" data-testid="measured-error">
                    { i18n::could_not_read_sentence(lang, source) }{ " " }{ field_error_view(e, lang) }
                </p>
            }
            if let Some(e) = &*calibrate_error {
                <p class="field-error" role="alert" data-testid="calibrate-error">
                    { T::CannotCalibrate.get(lang) }{ " " }{ field_error_view(e, lang) }
                </p>
            }
            { for loaded.items.iter().zip(comparisons.iter()).map(|((source, m), result)| match result {
                Ok(c) => comparison_view(source, m, c, lang),
                Err(errors) => html! {
                    <p class="field-error" data-testid="measured-case-error">
                        { i18n::cannot_compare_sentence(lang, source) }{ " " }
                        { for errors.iter().map(|e| field_error_view(e, lang)) }
                    </p>
                },
            }) }
            if let Some(c) = &*calibration {
                { calibration_view(c, lang, on_undo) }
            }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_constants_keep_their_digits() {
        assert_eq!(constant_value("perf.kernel_launch_s", 2.5e-6), "2.5e-6");
        assert_eq!(constant_value("perf.host.op_forward_s", 3.19e-5), "3.19e-5");
        assert_eq!(constant_value("perf.compute_efficiency", 0.64), "0.64");
    }

    const SAMPLE: &str = include_str!("../../tools/samples/synthetic_hybridsn_a5500_b64.json");

    fn load(state: Loaded, source: &str, text: &str) -> Loaded {
        let action = Load::Text {
            source: source.into(),
            text: text.into(),
        };
        (*Rc::new(state).reduce(action)).clone()
    }

    #[test]
    fn a_file_loads_and_loading_it_again_replaces_it() {
        let one = load(Loaded::default(), "a.json", SAMPLE);
        assert_eq!(one.items.len(), 1);
        assert_eq!(one.items[0].1.batch, 64);
        let again = load(
            one,
            "a.json",
            &SAMPLE.replace("\"batch\": 64", "\"batch\": 32"),
        );
        assert_eq!(again.items.len(), 1);
        assert_eq!(again.items[0].1.batch, 32);
        assert!(again.error.is_none());
    }

    #[test]
    fn a_bad_file_is_named_and_the_loaded_ones_stay() {
        let one = load(Loaded::default(), "a.json", SAMPLE);
        let bad = load(one, "b.json", r#"{"batch": "many"}"#);
        assert_eq!(bad.items.len(), 1);
        let (source, error) = bad.error.clone().expect("an error");
        assert_eq!((source.as_str(), error.field.as_str()), ("b.json", "batch"));
        // The next good file clears the error.
        let good = load(bad, "c.json", SAMPLE);
        assert_eq!(good.items.len(), 2);
        assert!(good.error.is_none());
    }

    #[test]
    fn at_most_max_measurements_are_kept() {
        let full = (0..=MAX_MEASUREMENTS).fold(Loaded::default(), |state, i| {
            load(state, &format!("{i}.json"), SAMPLE)
        });
        assert_eq!(full.items.len(), MAX_MEASUREMENTS);
        assert!(full
            .error
            .as_ref()
            .is_some_and(|(_, e)| e.allowed.contains("at most")));
        let cleared = (*Rc::new(full).reduce(Load::Clear)).clone();
        assert_eq!(cleared, Loaded::default());
    }
}
