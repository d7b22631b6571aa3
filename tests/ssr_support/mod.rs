//! Shared fixtures for the server-side-rendering component tests.

use hsi_gpu_planner::components::chart_tile::{Chart, ChartTile, ChartTileProps};
use hsi_gpu_planner::SharedReport;

use hsi_gpu_core::graph::{ops, ModelBuilder, ModelSpec, Op};
use hsi_gpu_core::scenario::ModelChoice;
use hsi_gpu_core::{estimate, Scenario};
use yew::{function_component, html, BaseComponent, Html, LocalServerRenderer, Properties};

/// Renders a component to HTML without hydration markers.
pub async fn render<C: BaseComponent>(props: C::Properties) -> String {
    LocalServerRenderer::<C>::with_props(props)
        .hydratable(false)
        .render()
        .await
}

#[derive(Properties, PartialEq)]
pub struct ShownProps {
    html: Html,
}

/// A component that shows the Html it is given.
#[function_component]
fn Shown(props: &ShownProps) -> Html {
    html! { { props.html.clone() } }
}

/// Renders a plain view (what a `view()` returns) to HTML, as `render` does a component.
#[allow(dead_code)]
pub async fn render_view(html: Html) -> String {
    render::<Shown>(ShownProps { html }).await
}

/// Renders one of the dashboard's charts in its `ChartTile`.
#[allow(dead_code)]
pub async fn render_chart(chart: Chart) -> String {
    render::<ChartTile>(ChartTileProps { chart }).await
}

/// A small 3-D CNN written out here, so the tests do not depend on which zoo presets exist:
/// two Conv3d + ReLU, global pooling, a classifier.
#[allow(dead_code)] // not every test file uses every fixture
pub fn small_cnn(bands: u64, patch: u64, classes: u64) -> ModelSpec {
    let mut b = ModelBuilder::new("test-cnn", vec![1, bands, patch, patch]);
    b.push(ops::conv(3, 8, &[7, 3, 3], &[0, 1, 1]))
        .push(ops::relu())
        .push(ops::conv(3, 16, &[5, 3, 3], &[0, 1, 1]))
        .push(ops::relu())
        .push(Op::AdaptiveAvgPool {
            dims: 3,
            output: vec![1, 1, 1],
        })
        .push(Op::Flatten)
        .push(ops::linear(classes));
    b.build()
}

/// The default scenario with the small CNN as a custom model.
#[allow(dead_code)]
pub fn scenario() -> Scenario {
    let mut s = Scenario::default();
    s.model = ModelChoice::Custom {
        spec: small_cnn(s.bands.into(), s.patch.into(), s.classes.into()),
    };
    s
}

/// A catalog card with neither a street nor a launch price.
#[allow(dead_code)]
pub fn unpriced_gpu() -> &'static hsi_gpu_core::gpu::GpuSpec {
    hsi_gpu_core::gpu::GPUS
        .iter()
        .find(|g| {
            hsi_gpu_core::market::default_card_price_usd(
                g,
                hsi_gpu_core::market::DEFAULT_CNY_PER_USD,
            )
            .is_none()
        })
        .expect("some card has no known price")
}

/// The core's report for a valid scenario.
#[allow(dead_code)]
pub fn report(s: &Scenario) -> SharedReport {
    SharedReport::new(estimate(s).expect("the test scenario is valid"))
}

/// Text between `data-testid="<id>">` and the next tag.
pub fn testid_text<'a>(html: &'a str, id: &str) -> Option<&'a str> {
    let marker = format!("data-testid=\"{id}\"");
    let at = html.find(&marker)?;
    let start = at + html[at..].find('>')? + 1;
    let end = start + html[start..].find('<')?;
    Some(&html[start..end])
}

#[allow(dead_code)] // used by ssr_views only; each test file compiles this module alone
pub fn count(html: &str, needle: &str) -> usize {
    html.matches(needle).count()
}
