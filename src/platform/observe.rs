//! Observers the views need from the browser: a chart box's size (the charts are drawn
//! at one SVG unit per CSS pixel, so their text is the size the style sheet says) and
//! whether a section is near the viewport (the work below the fold waits for it).

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, IntersectionObserver, IntersectionObserverInit, ResizeObserver};

/// A box's content size and font size in CSS pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxSize {
    pub width: f64,
    pub height: f64,
    pub font: f64,
}

/// Calls `on_size` with `element`'s size now and after every change of it, for as long
/// as the returned observer is kept.
pub struct SizeObserver {
    observer: ResizeObserver,
    _callback: Closure<dyn FnMut()>,
}

impl Drop for SizeObserver {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

pub fn observe_size(
    element: &Element,
    on_size: impl Fn(BoxSize) + 'static,
) -> Option<SizeObserver> {
    let target = element.clone();
    let callback = Closure::<dyn FnMut()>::new(move || {
        let font = gloo_utils::window()
            .get_computed_style(&target)
            .ok()
            .flatten()
            .and_then(|style| style.get_property_value("font-size").ok())
            // The browser's parseFloat reads "11px": Rust's float parser and its tables would
            // cost the page 10 kB.
            .map(|text| js_sys::parse_float(&text))
            .filter(|font| font.is_finite() && *font > 0.0)
            .unwrap_or(11.0);
        on_size(BoxSize {
            width: f64::from(target.client_width()),
            height: f64::from(target.client_height()),
            font,
        });
    });
    let observer = ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
    observer.observe(element);
    Some(SizeObserver {
        observer,
        _callback: callback,
    })
}

/// Calls `near` once `element` comes within `margin` (CSS, e.g. "50%") of the viewport,
/// as long as the returned observer is kept.
pub struct NearObserver {
    observer: IntersectionObserver,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
}

impl Drop for NearObserver {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

pub fn when_near(
    element: &Element,
    margin: &str,
    near: impl Fn() + 'static,
) -> Option<NearObserver> {
    let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        let seen = entries.iter().any(|entry| {
            entry
                .unchecked_into::<web_sys::IntersectionObserverEntry>()
                .is_intersecting()
        });
        if seen {
            near();
        }
    });
    let options = IntersectionObserverInit::new();
    options.set_root_margin(margin);
    let observer =
        IntersectionObserver::new_with_options(callback.as_ref().unchecked_ref(), &options).ok()?;
    observer.observe(element);
    Some(NearObserver {
        observer,
        _callback: callback,
    })
}
