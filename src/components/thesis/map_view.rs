//! The thesis map (`core/src/thesis`): the lever tile's second view. `use_levers_tile`
//! switches between the scenario's levers and the map and computes the map (`use_thesis_map`: cell
//! by cell, once the scenario rests and only while the map is open, yielding to the
//! browser between cells); `MapView` draws it, a plain view drawn by `ChartTile`: a cell
//! per model (rows, small to large upwards) and patch (columns), coloured by its best
//! lever, thick lines where the best lever changes to the next larger model, and the
//! article's claims beside it with what the map finds.

use std::cell::Cell as Flag;
use std::rc::Rc;
use std::time::Duration;

use hsi_gpu_core::chart::{label_stride, text_width, Grid, Rect};
use hsi_gpu_core::levers::Lever;
use hsi_gpu_core::thesis::{self, ThesisMap, Verdict};
use hsi_gpu_core::{format, Scenario};
use yew::prelude::*;

use super::levers_view::LeversView;
use super::text::{lever_label, lever_name, limit_name};
use crate::components::chart_parts::{chart_box, mark, px, readout, Focus, Frame};
use crate::components::chart_tile::{Chart, ChartTile};
use crate::components::palette::{swatch, OKABE_ITO};
use crate::i18n::thesis_map::{aid_name, claim_detail, claim_finding, claim_short, progress, M};
use crate::i18n::{Lang, T};
use crate::SharedReport;

/// Cells with no best lever (none gains 2 %) and cells the model cannot be built for.
const NO_LEVER: &str = "#d1d5db";
const NOT_BUILT: &str = "#ffffff";

/// The switch buttons' element ids: keyboard focus moves to the other one when the tile
/// switches views (the pressed one leaves the page).
pub(super) const MAP_OPEN_ID: &str = "thesis-map-open";
const MAP_BACK_ID: &str = "thesis-map-back";

/// A map the views share, equal only to itself (like `SharedReport`).
#[derive(Clone)]
pub struct SharedMap(Rc<ThesisMap>);

impl SharedMap {
    pub fn new(map: ThesisMap) -> Self {
        SharedMap(Rc::new(map))
    }
}

impl PartialEq for SharedMap {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// Each lever's colour (Okabe-Ito), and whether its text is drawn light on it.
fn colour(lever: Lever) -> (&'static str, bool) {
    match lever {
        Lever::MemoryCapacity => (OKABE_ITO[0], false),
        Lever::MemoryBandwidth => (OKABE_ITO[1], false),
        Lever::Compute => (OKABE_ITO[2], false),
        Lever::HostCpu => (OKABE_ITO[4], true),
        Lever::Interconnect => (OKABE_ITO[5], false),
        Lever::InputPipeline => (OKABE_ITO[6], false),
    }
}

/// The map on the dashboard (drawn by `ChartTile`).
#[derive(PartialEq)]
pub struct MapView {
    /// None until the first map is done.
    pub map: Option<SharedMap>,
    pub lang: Lang,
    /// The map is for an earlier scenario (drawn faintly until the new one is done).
    pub stale: bool,
    /// Cells done and in all while a map is being computed.
    pub progress: Option<(usize, usize)>,
    /// Back to the scenario's levers (the button, or Escape in the map).
    pub on_back: Callback<()>,
}

/// What a cell reads out: model, size and patch; its best lever; what bounds it; what it
/// needed; and where the best lever changes below it.
fn cell_text(map: &ThesisMap, i: usize, lang: Lang) -> String {
    let c = &map.cells[i];
    // Chinese runs its words together and has its own punctuation.
    let (colon, semi, space, comma) = match lang {
        Lang::En => (": ", "; ", " ", ", "),
        Lang::Zh => ("：", "；", "", "、"),
    };
    if c.error.is_some() {
        // A model that cannot take the patch has no parameter count to give.
        let head = format!("{}, {} px", c.model, c.patch);
        return format!("{head}{colon}{}", M::NotBuilt.get(lang));
    }
    let head = format!("{} ({}), {} px", c.model, format::params(c.params), c.patch);
    let best = match c.best {
        Some(b) => {
            let label = lever_label(b.lever, b.factor, lang);
            match b.speedup {
                Some(s) => format!("{label}{colon}{}", format::times(s)),
                None => label,
            }
        }
        None => M::NoLever.get(lang).to_string(),
    };
    let mut out = format!("{head}{colon}{best}");
    if let Some(limit) = c.limit {
        let bound = M::Bound.get(lang);
        out.push_str(&format!("{semi}{bound}{space}{}", limit_name(limit, lang)));
    }
    if !c.aids.is_empty() {
        let aids: Vec<&str> = c.aids.iter().map(|a| aid_name(*a, lang)).collect();
        let needs = M::Needs.get(lang);
        out.push_str(&format!("{semi}{needs}{space}{}", aids.join(comma)));
    }
    let cols = map.patches.len();
    let name = |l: Option<Lever>| l.map_or(M::NoLever.get(lang), |l| lever_name(l, lang));
    if let Some(f) = map
        .flips
        .iter()
        .find(|f| f.row == i / cols && f.col == i % cols)
    {
        let flips = M::FlipBelow.get(lang);
        out.push_str(&format!(
            "{semi}{flips}{space}{} → {}",
            name(f.from),
            name(f.to)
        ));
    }
    out
}

/// The chart, drawn at its box's size (a row per model, a column per patch, the names on
/// the left and the sizes on the right), its legend and the claims.
/// Without a map yet, the box alone: it is in the page from the start, so its size is
/// measured before the first map is drawn.
fn body(map: Option<&ThesisMap>, lang: Lang, focus: &Focus, frame: &Frame) -> Html {
    let Some(map) = map else {
        return html! {
            <div class="map-body">{ chart_box(frame, M::Title.get(lang).to_string(), None, html! {}) }</div>
        };
    };
    let (rows, cols) = (map.models.len(), map.patches.len());
    let (width, height, font) = (frame.size.width, frame.size.height, frame.size.font);
    let sizes: Vec<String> = map
        .models
        .iter()
        .map(|m| format::params(m.params))
        .collect();
    let widest = |texts: &mut dyn Iterator<Item = &str>| {
        texts.map(|t| text_width(t, font)).fold(0.0, f64::max)
    };
    // The models' own names (a generic one with its author: "3-D CNN (Hamida)").
    let left = widest(&mut map.models.iter().map(|m| m.model.as_str())) + 6.0;
    // `text_width` is an estimate: a few pixels more than it says.
    let right = widest(&mut sizes.iter().map(String::as_str)) + 10.0;
    // Below the grid: the patch labels and the axis title.
    let bottom = 2.0 * font + 8.0;
    let row = ((height - 2.0 - bottom) / rows.max(1) as f64).clamp(1.0, 2.2 * font);
    let grid = Grid::new(
        Rect {
            x: left,
            y: 2.0,
            width: (width - left - right).max(1.0),
            height: row * rows as f64,
        },
        rows,
        cols,
    );
    // Labels where they fit: every row's when a row holds the text, else every n-th.
    let stride = label_stride(row, font + 1.0);
    let values_fit = row >= font + 1.0 && grid.cell_width() >= text_width("8.88×", font) + 4.0;
    let grid_bottom = 2.0 + row * rows as f64;
    let texts: Vec<String> = (0..map.cells.len())
        .map(|i| cell_text(map, i, lang))
        .collect();
    let used: Vec<Lever> = Lever::ALL
        .into_iter()
        .filter(|l| {
            map.cells
                .iter()
                .any(|c| c.best.map(|b| b.lever) == Some(*l))
        })
        .collect();
    let chart = html! { <>
        { for map.models.iter().zip(&sizes).enumerate().filter(|(r, _)| r % stride == 0).map(|(r, (m, size))| {
            let y = grid.cell(r, 0).center().1 + font * 0.35;
            html! { <g>
                { label("tick", left - 4.0, y, "end", m.model.clone()) }
                { label("tick", width - right + 4.0, y, "start", size.clone()) }
            </g> }
        }) }
        { for map.cells.iter().enumerate().map(|(i, c)| {
            let r = grid.cell(i / cols, i % cols);
            let (fill, light) = match (&c.error, c.best) {
                (Some(_), _) => (NOT_BUILT, false),
                (None, Some(b)) => colour(b.lever),
                (None, None) => (NO_LEVER, false),
            };
            let value = match (&c.error, c.best) {
                (None, Some(b)) => b.speedup.map(format::times)
                    .unwrap_or_else(|| M::MakesFit.get(lang).to_string()),
                (None, None) => "—".into(),
                (Some(_), _) => String::new(),
            };
            let (cx, cy) = r.center();
            mark(focus, i, &texts[i], Some("map-cell"), html! { <>
                <rect x={px(r.x + 0.5)} y={px(r.y + 0.5)} width={px(r.width - 1.0)}
                    height={px(r.height - 1.0)} fill={fill} class="map-cell" />
                if values_fit {
                    <text class={classes!("tick", "cell-value", light.then_some("light"))}
                        x={px(cx)} y={px(cy + font * 0.35)} text-anchor="middle">{ value }</text>
                }
            </> })
        }) }
        { for map.flips.iter().map(|f| {
            let (x1, x2, y) = grid.edge_below(f.row, f.col);
            html! { <line class="flip" data-testid="map-flip" x1={px(x1)} x2={px(x2)} y1={px(y)} y2={px(y)} /> }
        }) }
        { for map.patches.iter().enumerate().map(|(col, p)| {
            let x = grid.cell(0, col).center().0;
            label("tick", x, grid_bottom + font + 2.0, "middle", p.to_string())
        }) }
        { label("chart-label", left + grid.area.width / 2.0, grid_bottom + 2.0 * font + 5.0,
            "middle", M::PatchAxis.get(lang).to_string()) }
    </> };
    html! { <>
        <div class="map-body">
            { chart_box(frame, M::Title.get(lang).to_string(), Some("thesis-map-chart"), chart) }
            <div class="map-side">
                <ul class="legend" data-testid="map-legend">
                    { for used.iter().map(|l| html! {
                        <li>{ swatch(colour(*l).0) }{ lever_name(*l, lang) }</li>
                    }) }
                    <li>{ swatch(NO_LEVER) }{ M::NoLever.get(lang) }</li>
                    if map.cells.iter().any(|c| c.error.is_some()) {
                        <li>{ swatch(NOT_BUILT) }{ M::NotBuilt.get(lang) }</li>
                    }
                </ul>
                <h3>{ M::Claims.get(lang) }</h3>
                <ul class="claims" data-testid="map-claims">
                    { for map.claims.iter().map(|c| html! {
                        <li data-testid="map-claim" title={claim_detail(c, lang)}>
                            <span class="claim">{ claim_short(c.id, lang) }</span>
                            <strong class={classes!("finding", verdict_class(c.verdict))}>
                                { claim_finding(c, lang) }</strong>
                        </li>
                    }) }
                </ul>
            </div>
        </div>
        { readout(&texts, focus, T::ChartHint.get(lang), "map-readout") }
    </> }
}

impl MapView {
    pub fn view(&self, focus: Focus, frame: &Frame) -> Html {
        let lang = self.lang;
        let on_key = {
            let on_back = self.on_back.clone();
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Escape" {
                    on_back.emit(())
                }
            })
        };
        html! {
            <section class={classes!("panel", "view", "levers", "thesis-map", self.stale.then_some("stale"))}
                aria-labelledby="thesis-map-heading" data-testid="chart-thesis-map" onkeydown={on_key}>
                <h2 id="thesis-map-heading">{ M::Title.get(lang) }
                    <button type="button" class="view-switch" onclick={self.on_back.reform(|_: MouseEvent| ())}
                        id={MAP_BACK_ID} data-testid="levers-back">{ M::Back.get(lang) }</button>
                </h2>
                <p class="help">{ M::Help.get(lang) }</p>
                if let Some((done, total)) = self.progress {
                    <p class="notice" data-testid="map-progress">{ progress(done, total, lang) }</p>
                }
                { body(self.map.as_ref().map(|m| &*m.0), lang, &focus, frame) }
            </section>
        }
    }
}

/// One SVG text: one function for the chart's labels, so each is not its own copy of the
/// element's construction.
fn label(class: &'static str, x: f64, y: f64, anchor: &'static str, text: String) -> Html {
    html! { <text class={class} x={px(x)} y={px(y)} text-anchor={anchor}>{ text }</text> }
}

fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Agrees => "agrees",
        Verdict::Partly => "partly",
        Verdict::Disagrees => "disagrees",
        Verdict::NotTested => "untested",
    }
}

/// A map (and whether it is for an earlier scenario), and (cells done, all) while one is
/// being computed.
type MapState = (Option<(SharedMap, bool)>, Option<(usize, usize)>);

/// The scenario's map once the scenario rests, computed cell by cell while `open`
/// (between cells the browser takes its input). Closed, it costs a render nothing.
#[hook]
fn use_thesis_map(scenario: &Scenario, open: bool) -> MapState {
    let latest = use_state_eq(|| None::<(Rc<Scenario>, SharedMap)>);
    let done = use_state_eq(|| None::<(usize, usize)>);
    let key = open.then(|| thesis::map_key(scenario));
    let current = match (&key, latest.as_ref()) {
        (Some(key), Some((k, _))) => **k == *key,
        _ => false,
    };
    {
        let (latest, done) = (latest.clone(), done.clone());
        let wanted = key.filter(|key| !current && key.validate().is_empty());
        use_effect_with(wanted, move |wanted| {
            let cancelled = Rc::new(Flag::new(false));
            let timer = wanted.clone().map(|key| {
                let (key, flag) = (Rc::new(key), cancelled.clone());
                crate::platform::after(crate::app::WHAT_IFS_DELAY, move || {
                    yew::platform::spawn_local(async move {
                        let total = thesis::grid().count();
                        let mut cells = Vec::with_capacity(total);
                        for (model, patch) in thesis::grid() {
                            if flag.get() {
                                return;
                            }
                            cells.push(thesis::cell(&key, model, patch));
                            done.set(Some((cells.len(), total)));
                            // Let the browser handle input before the next cell.
                            yew::platform::time::sleep(Duration::ZERO).await;
                        }
                        let map = thesis::assemble(&key, cells);
                        latest.set(Some((key, SharedMap::new(map))));
                        done.set(None);
                    })
                })
            });
            move || {
                cancelled.set(true);
                drop(timer);
            }
        });
    }
    let map = latest.as_ref().map(|(_, m)| (m.clone(), !current));
    (map, (*done).filter(|_| !current))
}

/// The dashboard's "What would help most" tile: the scenario's levers, or the map across
/// model sizes (a hook of `app::App`, which follows the store anyway: no component of its
/// own, each of which is another copy of Yew's component machinery).
pub struct LeversTile {
    lang: Lang,
    open: bool,
    map: Option<(SharedMap, bool)>,
    done: Option<(usize, usize)>,
    on_open: Callback<MouseEvent>,
    on_back: Callback<()>,
}

#[hook]
pub fn use_levers_tile(scenario: &Scenario, lang: Lang) -> LeversTile {
    let open = use_state_eq(|| false);
    let (map, done) = use_thesis_map(scenario, *open);
    // Set by a switch, so focus moves only after the reader switched (not at load).
    let switched = use_mut_ref(|| false);
    {
        let switched = switched.clone();
        use_effect_with(*open, move |open| {
            if switched.replace(false) {
                crate::platform::focus(if *open { MAP_BACK_ID } else { MAP_OPEN_ID });
            }
        });
    }
    // Callbacks made once, so the charts' props stay equal and `ChartTile` skips them.
    let on_open = {
        let (open, switched) = (open.clone(), switched.clone());
        use_callback((), move |_: MouseEvent, ()| {
            *switched.borrow_mut() = true;
            open.set(true)
        })
    };
    let on_back = {
        let open = open.clone();
        use_callback((), move |(), ()| {
            *switched.borrow_mut() = true;
            open.set(false)
        })
    };
    LeversTile {
        lang,
        open: *open,
        map,
        done,
        on_open,
        on_back,
    }
}

impl LeversTile {
    /// The tile with the scenario's levers from `report` (the what-ifs').
    pub fn view(&self, report: SharedReport) -> Html {
        let lang = self.lang;
        if self.open {
            let stale = self.map.as_ref().is_some_and(|(_, stale)| *stale);
            let map = self.map.as_ref().map(|(m, _)| m.clone());
            let (progress, on_back) = (self.done, self.on_back.clone());
            html! {
                // Keyed: the map's own ChartTile, so its box is measured afresh.
                <ChartTile key="map" chart={Chart::Map(MapView { map, lang, stale, progress, on_back })} />
            }
        } else {
            html! {
                <ChartTile key="levers" chart={Chart::Levers(LeversView { report, lang,
                    on_map: Some(self.on_open.clone()) })} />
            }
        }
    }
}
