//! Notices about dropped link parameters, and the core's errors for a scenario it cannot
//! estimate (field, value, what is allowed).

use hsi_gpu_core::FieldError;
use yew::prelude::*;

use crate::i18n::{Lang, T};
use crate::query::Notice;

#[derive(Properties, PartialEq)]
pub struct NoticesProps {
    pub notices: Vec<Notice>,
    pub lang: Lang,
    pub on_dismiss: Callback<()>,
}

#[function_component]
pub fn Notices(props: &NoticesProps) -> Html {
    if props.notices.is_empty() {
        return html! {};
    }
    let lang = props.lang;
    let dismiss = props.on_dismiss.reform(|_: MouseEvent| ());
    html! {
        <div class="notice" role="status" data-testid="notices">
            <strong>{ T::Notices.get(lang) }</strong>
            <ul>
                { for props.notices.iter().map(|n| html! {
                    <li><code>{ format!("{}={}", n.key, n.value) }</code>{ ": " }{ &n.reason }
                        { " — " }{ T::NoticeFallback.get(lang) }</li>
                }) }
            </ul>
            <button type="button" onclick={dismiss}>{ T::Dismiss.get(lang) }</button>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct ErrorsProps {
    pub errors: Vec<FieldError>,
    pub lang: Lang,
}

#[function_component]
pub fn Errors(props: &ErrorsProps) -> Html {
    let lang = props.lang;
    html! {
        <section class="panel errors" role="alert" data-testid="errors">
            <h2>{ T::Errors.get(lang) }</h2>
            <ul>
                { for props.errors.iter().map(|e| html! {
                    <li><code>{ &e.field }</code>{ " = " }<code>{ &e.value }</code>
                        { format!(" — {}: {}", T::Allowed.get(lang), e.allowed) }</li>
                }) }
            </ul>
        </section>
    }
}
