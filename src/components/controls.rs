//! Input controls: a slider with a typed number beside it, a number box, a select, a
//! checkbox. Each reports on every `input` event, so the views follow a dragged slider
//! live. Every enum of the Scenario is a `Choice` (a select) with translated labels, every
//! flag a `Toggle`; only numbers are typed.
//!
//! A typed number outside its range (or not a number) never reaches the Scenario: the box
//! reports it (`Typing::report`), the store keeps the text beside the last valid Scenario,
//! the box shows it marked with the allowed range, and a valid number, or Escape, restores:
//! Escape the value from before the edit (`remember_text`), as each valid prefix of a
//! number typed key by key is used at once.
//!
//! Plain views (`Control { .. }.view()`), not components: their callbacks are new on
//! every render of the panel, so a component's props check would never spare a render,
//! and each component type costs the page its own copy of Yew's component machinery.

use yew::prelude::*;
use yew::TargetCast;

use web_sys::{Element, HtmlInputElement, HtmlSelectElement};

use crate::i18n::{self, Lang};
use crate::state::Action;
use crate::Store;

/// A number box's link to the store: the text last typed into it that is not an allowed
/// value (shown until fixed), and where the box reports such text (`Some`) or Escape
/// (`None`).
#[derive(Clone, Default)]
pub struct Typing {
    pub rejected: Option<AttrValue>,
    pub report: Callback<Option<String>>,
}

/// The store's side of the box for `field`: its rejected text, and reporting to the store
/// (`Action::Rejected`, or `Action::Restore` on Escape).
pub fn typing(store: &Store, field: &'static str) -> Typing {
    let report = {
        let store = store.clone();
        Callback::from(move |text: Option<String>| {
            store.dispatch(match text {
                Some(text) => Action::Rejected {
                    field: field.into(),
                    text,
                },
                None => Action::Restore,
            })
        })
    };
    Typing {
        rejected: store.rejected_text(field).map(AttrValue::from),
        report,
    }
}

/// What a number box takes: a whole number from `min` to `max` and, where `blank` is
/// set, an empty box (no value, e.g. no limit).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Allowed {
    min: u32,
    max: u32,
    blank: bool,
}

impl Allowed {
    /// The value typed (None: an allowed empty box), else the text to keep and mark.
    fn read(self, text: &str) -> Result<Option<u32>, String> {
        let trimmed = text.trim();
        if self.blank && trimmed.is_empty() {
            return Ok(None);
        }
        match trimmed.parse::<u32>() {
            Ok(v) if (self.min..=self.max).contains(&v) => Ok(Some(v)),
            _ => Err(text.to_string()),
        }
    }

    /// The error line under a box holding text it does not take, in the page's language.
    fn text(self, lang: Lang) -> String {
        if self.blank {
            i18n::allowed_range_or_blank(lang, self.min, self.max)
        } else {
            i18n::allowed_range(lang, self.min, self.max)
        }
    }
}

/// A box's text when it takes the focus, kept on the element for Escape (`escaped`):
/// what it held before this edit; nothing while it holds refused text.
pub fn remember_text(e: FocusEvent) {
    let input: HtmlInputElement = e.target_unchecked_into();
    let _ = if input.get_attribute("aria-invalid").as_deref() == Some("true") {
        input.remove_attribute("data-before")
    } else {
        input.set_attribute("data-before", &input.value())
    };
}

/// Escape in a box: `Some`, with its text from when it took the focus where it had one.
pub fn escaped(e: &KeyboardEvent) -> Option<Option<String>> {
    (e.key() == "Escape").then(|| {
        e.target_unchecked_into::<Element>()
            .get_attribute("data-before")
    })
}

/// The widest number box, in characters (app.css has a width for each up to it).
const MAX_BOX_CHARS: usize = 12;

/// The typed number box shared by `NumberSlider` and `NumberBox`, with its error line
/// (the allowed range in the page's language) while it holds rejected text. `value` is
/// the value in use as the box shows it.
fn number_input(
    id: &AttrValue,
    label: &AttrValue,
    value: String,
    allowed: Allowed,
    typing: &Typing,
    lang: Lang,
    on_change: &Callback<Option<u32>>,
) -> (Html, Html) {
    let on_type = {
        let (on_change, report) = (on_change.clone(), typing.report.clone());
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            match allowed.read(&input.value()) {
                Ok(v) => on_change.emit(v),
                Err(text) => report.emit(Some(text)),
            }
        })
    };
    // Escape: the value from before this edit (each valid prefix typed was applied), or,
    // where that text is refused too, the value in use.
    let on_key = {
        let (on_change, report) = (on_change.clone(), typing.report.clone());
        Callback::from(move |e: KeyboardEvent| {
            if let Some(before) = escaped(&e) {
                match before.map(|text| allowed.read(&text)) {
                    Some(Ok(v)) => on_change.emit(v),
                    _ => report.emit(None),
                }
            }
        })
    };
    let shown = typing
        .rejected
        .clone()
        .unwrap_or_else(|| AttrValue::from(value));
    // Wide enough for the largest allowed value, or for what was typed (the style sheet
    // sizes the box by `data-chars`: a strict CSP refuses style attributes).
    let chars = shown
        .len()
        .max(allowed.max.to_string().len())
        .clamp(2, MAX_BOX_CHARS);
    let input_id = format!("{id}-input");
    let error_id = format!("{id}-error");
    let invalid = typing.rejected.is_some();
    let input = html! {
        <input type="number" id={input_id.clone()} data-testid={input_id}
            class="number" inputmode="numeric" aria-label={label.clone()}
            data-chars={chars.to_string()}
            min={allowed.min.to_string()} max={allowed.max.to_string()} step="1"
            value={shown} oninput={on_type} onkeydown={on_key} onfocus={remember_text}
            aria-invalid={invalid.to_string()}
            aria-describedby={invalid.then(|| AttrValue::from(error_id.clone()))} />
    };
    let error = if invalid {
        html! {
            <p class="field-error" id={error_id.clone()} data-testid={error_id} role="alert">
                { allowed.text(lang) }</p>
        }
    } else {
        html! {}
    };
    (input, error)
}

pub struct NumberSlider {
    /// Element id prefix; also the `data-testid` of the slider (`<id>-slider`) and the
    /// number box (`<id>-input`).
    pub id: AttrValue,
    pub label: AttrValue,
    pub unit: AttrValue,
    pub value: u32,
    /// Slider range; the number box accepts up to `max_typed`.
    pub min: u32,
    pub max: u32,
    pub max_typed: u32,
    /// Slider moves in powers of two (batch sizes).
    pub log2: bool,
    pub typing: Typing,
    pub lang: Lang,
    pub on_change: Callback<u32>,
}

/// Slider position for a value: the value itself, or log2 rounded for power-of-two steps.
fn slider_position(value: u32, log2: bool) -> u32 {
    if log2 {
        (f64::from(value.max(1))).log2().round() as u32
    } else {
        value
    }
}

impl NumberSlider {
    pub fn view(self) -> Html {
        let (slider_min, slider_max) = if self.log2 {
            (
                slider_position(self.min, true),
                slider_position(self.max, true),
            )
        } else {
            (self.min, self.max)
        };
        let on_slide = {
            let on_change = self.on_change.clone();
            let log2 = self.log2;
            Callback::from(move |e: InputEvent| {
                let input: HtmlInputElement = e.target_unchecked_into();
                if let Ok(position) = input.value().parse::<u32>() {
                    on_change.emit(if log2 {
                        1u32 << position.min(31)
                    } else {
                        position
                    });
                }
            })
        };
        let slider_id = format!("{}-slider", self.id);
        let allowed = Allowed {
            min: self.min,
            max: self.max_typed,
            blank: false,
        };
        let on_typed = {
            let on_change = self.on_change.clone();
            // A box that takes no empty text reports only numbers.
            Callback::from(move |v: Option<u32>| {
                if let Some(v) = v {
                    on_change.emit(v)
                }
            })
        };
        let (number, error) = number_input(
            &self.id,
            &self.label,
            self.value.to_string(),
            allowed,
            &self.typing,
            self.lang,
            &on_typed,
        );
        html! {
            <div class="control slider-control">
                <label for={slider_id.clone()}>{ &self.label }</label>
                <div class="slider-row">
                    <input type="range" id={slider_id.clone()} data-testid={slider_id}
                        aria-valuetext={format!("{} {}", self.value, self.unit)}
                        min={slider_min.to_string()} max={slider_max.to_string()} step="1"
                        value={slider_position(self.value, self.log2).to_string()}
                        oninput={on_slide} />
                    { number }
                    <span class="unit">{ &self.unit }</span>
                </div>
                { error }
            </div>
        }
    }
}

/// A typed whole number without a slider (the comparison's option and decision inputs),
/// possibly left empty.
pub struct NumberBox {
    /// Element id prefix: the box is `<id>-input`.
    pub id: AttrValue,
    pub label: AttrValue,
    /// The value in use; None shows an empty box.
    pub value: Option<f64>,
    pub min: u32,
    pub max: u32,
    /// An empty box is allowed and reported as None (e.g. no limit).
    pub optional: bool,
    pub typing: Typing,
    pub lang: Lang,
    pub on_change: Callback<Option<u32>>,
}

impl NumberBox {
    pub fn view(self) -> Html {
        let allowed = Allowed {
            min: self.min,
            max: self.max,
            blank: self.optional,
        };
        let value = self.value.map(|v| v.to_string()).unwrap_or_default();
        let (number, error) = number_input(
            &self.id,
            &self.label,
            value,
            allowed,
            &self.typing,
            self.lang,
            &self.on_change,
        );
        html! {
            <div class="control">
                <label for={format!("{}-input", self.id)}>{ &self.label }</label>
                <div class="slider-row">{ number }</div>
                { error }
            </div>
        }
    }
}

pub struct Choice {
    pub id: AttrValue,
    pub label: AttrValue,
    /// (value, label) pairs.
    pub options: Vec<(AttrValue, AttrValue)>,
    pub selected: AttrValue,
    pub on_change: Callback<String>,
}

impl Choice {
    pub fn view(self) -> Html {
        let on_input = {
            let on_change = self.on_change.clone();
            Callback::from(move |e: InputEvent| {
                let select: HtmlSelectElement = e.target_unchecked_into();
                on_change.emit(select.value());
            })
        };
        html! {
            <div class="control choice">
                <label for={self.id.clone()}>{ &self.label }</label>
                <select id={self.id.clone()} data-testid={self.id.clone()} oninput={on_input}>
                    { for self.options.iter().map(|(value, label)| html! {
                        <option value={value.clone()} selected={*value == self.selected}>{ label }</option>
                    }) }
                </select>
            </div>
        }
    }
}

pub struct Toggle {
    pub id: AttrValue,
    pub label: AttrValue,
    pub checked: bool,
    pub on_change: Callback<bool>,
}

impl Toggle {
    pub fn view(self) -> Html {
        let on_input = {
            let on_change = self.on_change.clone();
            Callback::from(move |e: InputEvent| {
                let input: HtmlInputElement = e.target_unchecked_into();
                on_change.emit(input.checked());
            })
        };
        html! {
            <div class="control toggle">
                <input type="checkbox" id={self.id.clone()} data-testid={self.id.clone()}
                    checked={self.checked} oninput={on_input} />
                <label for={self.id.clone()}>{ &self.label }</label>
            </div>
        }
    }
}

/// A `<details>` section's open state and its `ontoggle`, for sections that render their
/// contents only while open. One hook for all of them (one copy of Yew's state hook).
#[hook]
pub fn use_open(initially: bool) -> (bool, Callback<Event>) {
    let open = use_state(move || initially);
    let on_toggle = {
        let open = open.clone();
        Callback::from(move |e: Event| {
            open.set(e.target_unchecked_into::<Element>().has_attribute("open"))
        })
    };
    (*open, on_toggle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_number_counts_only_inside_its_range() {
        let batch = Allowed {
            min: 1,
            max: 1 << 20,
            blank: false,
        };
        assert_eq!(batch.read(" 256 "), Ok(Some(256)));
        for bad in ["99999999", "0", "", "-3", "2.5", "64x", "1e9"] {
            assert_eq!(batch.read(bad), Err(bad.to_string()), "{bad}");
        }
        let budget = Allowed {
            min: 0,
            max: 1_000_000_000,
            blank: true,
        };
        assert_eq!(budget.read(" "), Ok(None));
        assert_eq!(budget.read("0"), Ok(Some(0)));
        for bad in ["-100", "1e308", "2.5"] {
            assert_eq!(budget.read(bad), Err(bad.to_string()), "{bad}");
        }
    }
}
