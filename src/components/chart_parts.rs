//! What the SVG charts share: the box each is drawn in, at one SVG unit per CSS pixel
//! (`Frame`, measured by `use_frame`), marks (bars, points, segments) that tell their value
//! on hover and on keyboard focus, and the readout line under the chart where they do.

use yew::prelude::*;

use crate::platform::observe::{observe_size, BoxSize};

/// `text` cut from its end to at most `width` px at `font`, an ellipsis marking the cut;
/// None when it fits whole. A label drawn right-aligned must fit its column, or it runs
/// out of the SVG on the left.
pub fn shortened(text: &str, width: f64, font: f64) -> Option<String> {
    use hsi_gpu_core::chart::text_width;
    if text_width(text, font) <= width {
        return None;
    }
    let room = width - text_width("…", font);
    let mut used = 0.0;
    let kept: String = text
        .chars()
        .take_while(|c| {
            used += text_width(c.encode_utf8(&mut [0; 4]), font);
            used <= room
        })
        .collect();
    Some(format!("{}…", kept.trim_end()))
}

/// The box a chart is drawn in: its size in CSS pixels, which the SVG's units equal, the
/// font size of its text, and the element it is measured on. In the page a chart is drawn
/// only once its box is measured (before the first paint), so it is not drawn twice at load;
/// rendered on the server (the native tests) it is drawn at `UNMEASURED`.
#[derive(Clone, PartialEq)]
pub struct Frame {
    pub node: NodeRef,
    pub size: BoxSize,
    pub measured: bool,
}

/// Until the box is measured (and in server-side rendering): a laptop tile's chart.
const UNMEASURED: BoxSize = BoxSize {
    width: 400.0,
    height: 200.0,
    font: 11.0,
};

/// A chart's frame: measured once the box is in the page and again whenever it changes
/// size, so the chart is redrawn to fit (a window resize, presentation mode).
#[hook]
pub fn use_frame() -> Frame {
    let node = use_node_ref();
    let size = use_state_eq(|| (!cfg!(target_arch = "wasm32")).then_some(UNMEASURED));
    {
        let size = size.clone();
        use_effect_with(node.clone(), move |node| {
            let observer = node.cast::<web_sys::Element>().and_then(|element| {
                observe_size(&element, move |measured| {
                    // A box that is not laid out (display: none) keeps its last size.
                    if measured.width > 0.0 && measured.height > 0.0 {
                        size.set(Some(measured))
                    }
                })
            });
            move || drop(observer)
        });
    }
    Frame {
        node,
        size: size.unwrap_or(UNMEASURED),
        measured: size.is_some(),
    }
}

/// The chart's box and its SVG, drawn at the box's size: `body` in SVG units (CSS px).
pub fn chart_box(frame: &Frame, label: String, testid: Option<&'static str>, body: Html) -> Html {
    let BoxSize { width, height, .. } = frame.size;
    html! {
        <div class="chart-box" ref={frame.node.clone()}>
            <svg class="chart" viewBox={format!("0 0 {width:.0} {height:.0}")}
                width={px(width)} height={px(height)} role="group" aria-label={label}
                data-testid={testid.map(AttrValue::from)}>
                if frame.measured { { body } }
            </svg>
        </div>
    }
}

/// A coordinate or length as SVG attribute text, to a tenth of a pixel. Every chart's
/// numbers go through this one non-generic function (`{:.1}`, the formatting the figures
/// already use) rather than each site's `f64::to_string` (std's shortest-digits path,
/// which the page then needs only for this).
pub fn px(v: f64) -> AttrValue {
    AttrValue::from(format!("{v:.1}"))
}

/// Which mark of a chart is hovered or focused.
pub type Focus = UseStateHandle<Option<usize>>;

/// A chart's focus, none at first. One hook for every chart: each `use_state` call site
/// with its own initialiser is its own copy of Yew's state hook in the page.
#[hook]
pub fn use_focus() -> Focus {
    use_state(|| None)
}

/// A chart mark reachable by mouse and keyboard: hovering or focusing it shows `text` in
/// the chart's readout; screen readers read it as the mark's label. No `<title>` beside
/// the label: the readout already says it on hover, and a dragged slider would rewrite
/// every mark's text twice.
pub fn mark(
    focus: &Focus,
    index: usize,
    text: &str,
    testid: Option<&'static str>,
    body: Html,
) -> Html {
    any_mark(true, focus, index, text, testid, body)
}

/// A bar (or a segment of one) narrower than this, in CSS px, is no tab stop: focused, it
/// would show no ring (a 0 B memory term, a cost without its price, a sliver). Its figure
/// stays in the legend, the row's total or the tables below.
pub const MIN_FOCUS_PX: f64 = 2.0;

/// A bar `length` px long, as `mark`; a tab stop only from `MIN_FOCUS_PX` on.
pub fn bar_mark(
    length: f64,
    focus: &Focus,
    index: usize,
    text: &str,
    body: Html,
    testid: Option<&'static str>,
) -> Html {
    any_mark(length >= MIN_FOCUS_PX, focus, index, text, testid, body)
}

fn any_mark(
    tab_stop: bool,
    focus: &Focus,
    index: usize,
    text: &str,
    testid: Option<&'static str>,
    body: Html,
) -> Html {
    let on_focus = {
        let focus = focus.clone();
        Callback::from(move |_: FocusEvent| focus.set(Some(index)))
    };
    let on_hover = {
        let focus = focus.clone();
        Callback::from(move |_: MouseEvent| focus.set(Some(index)))
    };
    html! {
        <g class="point" tabindex={tab_stop.then_some("0")} role="img" aria-label={text.to_string()}
            onfocus={on_focus} onmouseenter={on_hover} data-testid={testid.map(AttrValue::from)}>
            { body }
        </g>
    }
}

/// The line under a chart that reads out the focused mark (`texts[i]`), else `hint`.
pub fn readout(texts: &[String], focus: &Focus, hint: &str, testid: &'static str) -> Html {
    let text = focus
        .and_then(|i| texts.get(i))
        .map_or(hint, String::as_str)
        .to_string();
    html! { <p class="readout" aria-live="polite" data-testid={testid}>{ text }</p> }
}

/// "now (before: then)" when a ghost value exists and differs.
pub fn with_before(now: String, before: Option<String>, word: &str) -> String {
    match before {
        Some(before) if before != now => format!("{now} ({word}: {before})"),
        _ => now,
    }
}

/// One labelled figure of a tile's key figures (`data-testid` where tests read it).
pub fn key_figure(label: &str, testid: Option<&'static str>, value: String) -> Html {
    // A Chinese label takes the full-width colon.
    let colon = if label.chars().last().is_some_and(|c| c >= '\u{2E80}') {
        "："
    } else {
        ": "
    };
    html! {
        <span>{ label }{ colon }<strong class="figure" data-testid={testid}>{ value }</strong></span>
    }
}
