// Talc instead of Rust's default wasm allocator (dlmalloc): fewer bytes to download.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

fn main() {
    #[cfg(target_arch = "wasm32")]
    hsi_gpu_planner::start();
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("The web app runs in a browser: build it with `trunk build` (see tools/build.sh).");
}
