//! Input controls: a slider with a typed number beside it, a select, a checkbox. Each
//! reports on every `input` event, so the views follow a dragged slider live.
//!
//! Plain views (`Control { .. }.view()`), not components: their callbacks are new on
//! every render of the panel, so a component's props check would never spare a render,
//! and each component type costs the page its own copy of Yew's component machinery.

use yew::prelude::*;
use yew::TargetCast;

use web_sys::{Element, HtmlInputElement, HtmlSelectElement};

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
        let on_type = {
            let on_change = self.on_change.clone();
            Callback::from(move |e: InputEvent| {
                let input: HtmlInputElement = e.target_unchecked_into();
                // Half-typed text (empty, "-") is left alone until it reads as a number.
                if let Ok(value) = input.value().trim().parse::<u32>() {
                    on_change.emit(value);
                }
            })
        };
        let slider_id = format!("{}-slider", self.id);
        let input_id = format!("{}-input", self.id);
        html! {
            <div class="control slider-control">
                <label for={input_id.clone()}>{ &self.label }</label>
                <div class="slider-row">
                    <input type="range" id={slider_id.clone()} data-testid={slider_id}
                        aria-label={self.label.clone()}
                        aria-valuetext={format!("{} {}", self.value, self.unit)}
                        min={slider_min.to_string()} max={slider_max.to_string()} step="1"
                        value={slider_position(self.value, self.log2).to_string()}
                        oninput={on_slide} />
                    <input type="number" id={input_id.clone()} data-testid={input_id}
                        class="number" inputmode="numeric"
                        min={self.min.to_string()} max={self.max_typed.to_string()} step="1"
                        value={self.value.to_string()} oninput={on_type} />
                    <span class="unit">{ &self.unit }</span>
                </div>
            </div>
        }
    }
}

pub struct StepSlider {
    pub id: AttrValue,
    pub label: AttrValue,
    /// Names of the steps, in slider order.
    pub names: Vec<AttrValue>,
    pub index: usize,
    pub on_change: Callback<usize>,
}

/// A slider over a short list of named choices (precision), showing the chosen name.
impl StepSlider {
    pub fn view(self) -> Html {
        let steps = self.names.len();
        let on_slide = {
            let on_change = self.on_change.clone();
            Callback::from(move |e: InputEvent| {
                let input: HtmlInputElement = e.target_unchecked_into();
                if let Ok(index) = input.value().parse::<usize>() {
                    if index < steps {
                        on_change.emit(index);
                    }
                }
            })
        };
        let slider_id = format!("{}-slider", self.id);
        let current = self.names.get(self.index).cloned().unwrap_or_default();
        html! {
            <div class="control slider-control">
                <label for={slider_id.clone()}>{ &self.label }</label>
                <div class="slider-row">
                    <input type="range" id={slider_id.clone()} data-testid={slider_id}
                        min="0" max={steps.saturating_sub(1).to_string()} step="1"
                        value={self.index.to_string()} aria-valuetext={current.clone()}
                        oninput={on_slide} />
                    <output class="step-name" for={format!("{}-slider", self.id)}>{ current }</output>
                </div>
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
            <div class="control">
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
