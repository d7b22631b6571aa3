//! Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
//! Order: orange, sky blue, bluish green, yellow, blue, vermillion, reddish purple, black.
pub const OKABE_ITO: [&str; 8] = [
    "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000",
];
