//! One component per view or control.

pub mod assumptions;
pub mod chart_parts;
pub mod chart_tile;
pub mod compare;
pub mod controls;
pub mod cost_chart;
pub mod cost_view;
pub mod header;
pub mod layer_table;
pub mod measured_view;
pub mod memory_view;
pub mod messages;
pub mod model_loader;
pub mod palette;
pub mod roofline;
pub mod scaling_view;
pub mod scenario_panel;
pub mod thesis;
pub mod verdict;
