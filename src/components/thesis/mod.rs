//! The article's thesis for this scenario (what would help most), the work after training
//! (evaluation and whole-scene prediction) and where the article's figures are off.

pub mod article_panel;
pub mod inference_view;
pub mod levers_view;
pub mod text;
