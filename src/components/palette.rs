//! Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
//! Order: orange, sky blue, bluish green, yellow, blue, vermillion, reddish purple, black.

use yew::prelude::*;

pub const OKABE_ITO: [&str; 8] = [
    "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000",
];

/// A legend's colour square. Drawn as SVG with a `fill` attribute, not an inline `style`,
/// so a strict Content-Security-Policy (no 'unsafe-inline' styles) still shows it.
pub fn swatch(colour: &'static str) -> Html {
    html! {
        <svg class="swatch" viewBox="0 0 10 10" aria-hidden="true">
            <rect width="10" height="10" rx="2" fill={colour} />
        </svg>
    }
}
