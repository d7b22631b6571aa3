fn main() {
    #[cfg(target_arch = "wasm32")]
    hsi_gpu_planner::start();
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("The web app runs in a browser: build it with `trunk build` (see tools/build.sh).");
}
