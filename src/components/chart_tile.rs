//! The dashboard's charts as one component: each chart is a plain view of its figures and
//! the hovered or focused mark (`chart_parts::Focus`) in its measured box
//! (`chart_parts::Frame`); `ChartTile` holds the focus and the box's size and skips a
//! chart whose figures did not change. One component type for six charts: each
//! type would be another copy of Yew's component machinery in the page.

use yew::prelude::*;

use crate::components::chart_parts::{use_focus, use_frame};
use crate::components::cost_chart::CostChart;
use crate::components::memory_view::MemoryView;
use crate::components::roofline::RooflineView;
use crate::components::scaling_view::ScalingView;
use crate::components::thesis::levers_view::LeversView;
use crate::components::thesis::map_view::MapView;

/// One of the dashboard's charts with its figures.
#[derive(PartialEq)]
pub enum Chart {
    Memory(MemoryView),
    Scaling(ScalingView),
    Roofline(RooflineView),
    Cost(CostChart),
    Levers(LeversView),
    /// The lever tile's map across model sizes.
    Map(MapView),
}

#[derive(Properties, PartialEq)]
pub struct ChartTileProps {
    pub chart: Chart,
}

#[function_component]
pub fn ChartTile(props: &ChartTileProps) -> Html {
    let focus = use_focus();
    let frame = use_frame();
    match &props.chart {
        Chart::Memory(chart) => chart.view(focus, &frame),
        Chart::Scaling(chart) => chart.view(focus, &frame),
        Chart::Roofline(chart) => chart.view(focus, &frame),
        Chart::Cost(chart) => chart.view(focus, &frame),
        Chart::Levers(chart) => chart.view(focus, &frame),
        Chart::Map(chart) => chart.view(focus, &frame),
    }
}
