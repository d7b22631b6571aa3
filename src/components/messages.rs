//! Notices about dropped link parameters, and the core's errors for a scenario it cannot
//! estimate (field, value, what is allowed).

use hsi_gpu_core::FieldError;
use yew::prelude::*;

use crate::i18n::{Lang, T};
use crate::query::Notice;

/// The link's dropped parameters, with a button that dismisses them.
pub fn notices(notices: &[Notice], lang: Lang, on_dismiss: Callback<()>) -> Html {
    if notices.is_empty() {
        return html! {};
    }
    let dismiss = on_dismiss.reform(|_: MouseEvent| ());
    html! {
        <div class="notice" role="status" data-testid="notices">
            <strong>{ T::Notices.get(lang) }</strong>
            <ul>
                { for notices.iter().map(|n| html! {
                    <li><code>{ format!("{}={}", n.key, n.value) }</code>{ ": " }{ &n.reason }
                        { " — " }{ T::NoticeFallback.get(lang) }</li>
                }) }
            </ul>
            <button type="button" onclick={dismiss}>{ T::Dismiss.get(lang) }</button>
        </div>
    }
}

/// Why the scenario cannot be estimated: each field, its value and what is allowed.
pub fn errors(errors: &[FieldError], lang: Lang) -> Html {
    html! {
        <section class="panel errors" role="alert" data-testid="errors">
            <h2>{ T::Errors.get(lang) }</h2>
            <ul>
                { for errors.iter().map(|e| html! {
                    <li><code>{ &e.field }</code>{ " = " }<code>{ &e.value }</code>
                        { format!(" — {}: {}", T::Allowed.get(lang), e.allowed) }</li>
                }) }
            </ul>
        </section>
    }
}
