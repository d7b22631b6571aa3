//! Observers the views need from the browser: a chart box's size (the charts are drawn
//! at one SVG unit per CSS pixel, so their text is the size the style sheet says) and
//! whether a section is near the viewport (the work below the fold waits for it).

use std::cell::RefCell;
use std::rc::Rc;

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
    element: Element,
}

impl Drop for SizeObserver {
    fn drop(&mut self) {
        BOXES.with(|boxes| {
            if let Some(boxes) = boxes.borrow_mut().as_mut() {
                boxes.observer.unobserve(&self.element);
                boxes
                    .watched
                    .retain(|(element, _)| *element != self.element);
            }
        });
    }
}

/// What a watched box's size goes to.
type OnSize = Rc<dyn Fn(BoxSize)>;

/// One resize observer for every chart box, so that the browser reports all their sizes
/// in one callback, each read before any chart is redrawn. With an observer each, the
/// charts were redrawn one callback at a time and every next box's reading laid the
/// page out again (one layout per chart in the frame that first draws them).
struct Boxes {
    observer: ResizeObserver,
    watched: Vec<(Element, OnSize)>,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
}

thread_local! {
    static BOXES: RefCell<Option<Boxes>> = const { RefCell::new(None) };
}

/// The box's size now, and its font size (the browser's parseFloat reads "11px": Rust's
/// float parser and its tables would cost the page 10 kB).
fn box_size(element: &Element) -> BoxSize {
    let font = gloo_utils::window()
        .get_computed_style(element)
        .ok()
        .flatten()
        .and_then(|style| style.get_property_value("font-size").ok())
        .map(|text| js_sys::parse_float(&text))
        .filter(|font| font.is_finite() && *font > 0.0)
        .unwrap_or(11.0);
    BoxSize {
        width: f64::from(element.client_width()),
        height: f64::from(element.client_height()),
        font,
    }
}

/// Every reported box's size, read before any of their callbacks runs.
fn report_sizes(entries: js_sys::Array) {
    let measured: Vec<_> = BOXES.with(|boxes| {
        let boxes = boxes.borrow();
        let watched = boxes.as_ref().map_or(&[][..], |b| b.watched.as_slice());
        entries
            .iter()
            .filter_map(|entry| {
                let target = entry
                    .unchecked_into::<web_sys::ResizeObserverEntry>()
                    .target();
                let (_, on_size) = watched.iter().find(|(element, _)| *element == target)?;
                Some((on_size.clone(), box_size(&target)))
            })
            .collect()
    });
    for (on_size, size) in measured {
        on_size(size);
    }
}

pub fn observe_size(
    element: &Element,
    on_size: impl Fn(BoxSize) + 'static,
) -> Option<SizeObserver> {
    BOXES.with(|boxes| {
        let mut boxes = boxes.borrow_mut();
        if boxes.is_none() {
            let callback = Closure::<dyn FnMut(js_sys::Array)>::new(report_sizes);
            *boxes = Some(Boxes {
                observer: ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?,
                watched: Vec::new(),
                _callback: callback,
            });
        }
        let boxes = boxes.as_mut()?;
        boxes.watched.push((element.clone(), Rc::new(on_size)));
        boxes.observer.observe(element);
        Some(SizeObserver {
            element: element.clone(),
        })
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
