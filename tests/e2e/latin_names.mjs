// Latin words that Chinese text may keep: units, and names written in Latin letters in
// Chinese too (products, libraries, formats, methods). Used by room.test.mjs.
export const LATIN_NAMES = [
  // units
  "B", "kB", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "ms", "µs", "us", "ns", "s", "min", "h", "W", "kW", "px",
  "FLOP", "FLOPs", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP", "Gb", "k", "M", "x",
  // hardware, software and formats
  "GPU", "CPU", "CUDA", "cuDNN", "NCCL", "PCIe", "NVLink", "NVSwitch", "SXM", "ECC", "HBM", "GDDR", "PUE", "TCO",
  "RDMA", "RoCE", "TCP", "InfiniBand", "HDR", "NDR", "Ethernet", "DDP", "FSDP", "ZeRO", "PyTorch", "DataLoader",
  "FP32", "FP16", "BF16", "TF32", "AMP", "SGD", "Adam", "AdamW", "LoRA", "SDPA", "MAE", "ViT", "qkv", "proj",
  "USD", "CNY", "JSON", "CSV", "SVG", "PNG", "README", "EN", "H", "NHWC", "nccl", "tests", "x16",
];
