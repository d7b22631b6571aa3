//! PyTorch's CUDA caching allocator, simulated: what `torch.cuda.max_memory_allocated`
//! and `max_memory_reserved` report for a sequence of tensor allocations and frees.
//!
//! The rules and constants are c10's (`c10/cuda/CUDACachingAllocator.cpp` and its
//! `CUDAAllocatorConfig`, PyTorch 2.x, default settings):
//! - every request is rounded up to a multiple of 512 B (`kMinBlockSize`, `round_size`);
//! - requests up to 1 MiB (`kSmallSize`) come from the small pool, whose segments are
//!   2 MiB (`kSmallBuffer`); larger ones from the large pool, whose segments are 20 MiB
//!   (`kLargeBuffer`) for requests under 10 MiB (`kMinLargeAlloc`) and the request
//!   rounded up to 2 MiB (`kRoundLarge`) above (`get_allocation_size`);
//! - a request takes the smallest cached free block of its pool that holds it (best fit,
//!   `get_free_block`, blocks ordered by size then address); the rest of the block is split
//!   off when at least 512 B remain in the small pool or more than 1 MiB in the large pool
//!   (`should_split`; `max_split_size` is unlimited by default, so large blocks split too);
//! - a freed block merges with free neighbours of its segment and stays cached;
//! - the card's limit (`with_limit`): a segment that would take the reserved bytes past
//!   it makes c10 return every cached segment with no block in use to the driver
//!   (`release_cached_blocks`; `release_available_cached_blocks` does nothing while
//!   `max_split_size` is unlimited) and try again; when that fails too the request is out
//!   of memory: `malloc` notes it and goes on past the limit, so the peaks still say how
//!   far over the step goes.
//!
//! Not modelled: `expandable_segments` (off by default).
//!
//! `step` replays one training step's tensors through it (`training_step`).

mod step;

pub use step::{training_step, StepMemory, StepTensors};

/// `kMinBlockSize`: every block is a multiple of it.
pub const MIN_BLOCK: u64 = 512;
/// `kSmallSize`: the largest request the small pool serves.
pub const SMALL_SIZE: u64 = 1 << 20;
/// `kSmallBuffer`: a small-pool segment.
pub const SMALL_BUFFER: u64 = 2 << 20;
/// `kLargeBuffer`: the segment for large requests under `MIN_LARGE_ALLOC`.
pub const LARGE_BUFFER: u64 = 20 << 20;
/// `kMinLargeAlloc`: from here a segment is the request rounded to `ROUND_LARGE`.
pub const MIN_LARGE_ALLOC: u64 = 10 << 20;
/// `kRoundLarge`.
pub const ROUND_LARGE: u64 = 2 << 20;

/// Largest request replayed as asked, 16 TiB: 60 times the largest card's memory. A
/// larger one (a scenario at its input limits asks for zettabytes) is replayed at this
/// size: it runs out of memory all the same, and the sums of a step's requests stay
/// within u64.
pub const MAX_REQUEST: u64 = 1 << 44;

/// A request rounded as `round_size` does.
pub fn round_size(bytes: u64) -> u64 {
    bytes.max(1).div_ceil(MIN_BLOCK) * MIN_BLOCK
}

/// The segment `cudaMalloc`'d for a rounded request no cached block holds.
pub fn segment_size(rounded: u64) -> u64 {
    if rounded <= SMALL_SIZE {
        SMALL_BUFFER
    } else if rounded < MIN_LARGE_ALLOC {
        LARGE_BUFFER
    } else {
        rounded.div_ceil(ROUND_LARGE) * ROUND_LARGE
    }
}

/// A block of a segment: where it starts, its size and, while allocated, the handle
/// holding it.
#[derive(Clone, Debug)]
struct Block {
    offset: u64,
    size: u64,
    owner: Option<usize>,
}

/// One `cudaMalloc`'d segment: its blocks in address order.
#[derive(Clone, Debug)]
struct Segment {
    small: bool,
    blocks: Vec<Block>,
}

impl Segment {
    fn index(&self, offset: u64) -> usize {
        self.blocks
            .binary_search_by_key(&offset, |b| b.offset)
            .expect("a block starts there")
    }
}

/// A cached free block: ordered by size, then segment and address (`BlockComparator`).
type FreeKey = (u64, usize, u64);

/// A pool's cached free blocks in `FreeKey` order: best fit is a binary search (a sorted
/// vector, not a `BTreeSet`: as fast at the few thousand blocks a step leaves, and a
/// fraction of the page's bytes).
#[derive(Clone, Debug, Default)]
struct FreeBlocks(Vec<FreeKey>);

impl FreeBlocks {
    fn insert(&mut self, key: FreeKey) {
        let at = self.0.partition_point(|k| *k < key);
        self.0.insert(at, key);
    }

    fn remove(&mut self, key: &FreeKey) {
        if let Ok(at) = self.0.binary_search(key) {
            self.0.remove(at);
        }
    }

    /// The smallest block of at least `size` bytes.
    fn best_fit(&self, size: u64) -> Option<FreeKey> {
        self.0.get(self.0.partition_point(|k| k.0 < size)).copied()
    }
}

/// The allocator's state and its peaks.
#[derive(Clone, Debug, Default)]
pub struct CachingAllocator {
    segments: Vec<Segment>,
    /// The free blocks of the small and the large pool.
    free_small: FreeBlocks,
    free_large: FreeBlocks,
    /// Per handle: the segment and offset of its block (None once freed).
    handles: Vec<Option<(usize, u64)>>,
    allocated: u64,
    reserved: u64,
    /// Bytes `cudaMalloc` can hand out in all (None: no limit).
    limit: Option<u64>,
    /// A tensor was allocated past the limit: the real step runs out of memory.
    pub out_of_memory: bool,
    /// A segment would have passed the limit: the cached segments went back to the driver
    /// (what the step holds was squeezed to fit the card).
    pub reached_limit: bool,
    pub peak_allocated: u64,
    pub peak_reserved: u64,
}

/// An allocation's handle, to free it with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handle(usize);

impl CachingAllocator {
    /// An allocator whose segments may add up to `limit` bytes.
    pub fn with_limit(limit: u64) -> CachingAllocator {
        CachingAllocator {
            limit: Some(limit),
            ..CachingAllocator::default()
        }
    }

    pub fn allocated(&self) -> u64 {
        self.allocated
    }

    pub fn reserved(&self) -> u64 {
        self.reserved
    }

    fn pool(&mut self, small: bool) -> &mut FreeBlocks {
        if small {
            &mut self.free_small
        } else {
            &mut self.free_large
        }
    }

    /// Segments with no block in use go back to the driver (`release_cached_blocks`).
    fn release_cached_segments(&mut self) {
        for seg in 0..self.segments.len() {
            let segment = &self.segments[seg];
            let &[Block {
                offset: 0,
                size,
                owner: None,
            }] = &segment.blocks[..]
            else {
                continue;
            };
            let small = segment.small;
            self.segments[seg].blocks.clear();
            self.reserved -= size;
            self.pool(small).remove(&(size, seg, 0));
        }
    }

    /// Allocates `bytes` (0 bytes allocate nothing and return None); past the limit it
    /// notes `out_of_memory` and allocates all the same.
    pub fn malloc(&mut self, bytes: u64) -> Option<Handle> {
        if bytes == 0 {
            return None;
        }
        let size = round_size(bytes.min(MAX_REQUEST));
        let small = size <= SMALL_SIZE;
        let id = self.handles.len();
        let found = self.pool(small).best_fit(size);
        let (seg, offset) = match found {
            Some(key) => {
                self.pool(small).remove(&key);
                (key.1, key.2)
            }
            None => {
                let segment = segment_size(size);
                let over = |a: &Self| a.limit.is_some_and(|l| a.reserved + segment > l);
                if over(self) {
                    self.reached_limit = true;
                    self.release_cached_segments();
                    self.out_of_memory |= over(self);
                }
                self.segments.push(Segment {
                    small,
                    blocks: vec![Block {
                        offset: 0,
                        size: segment,
                        owner: None,
                    }],
                });
                self.reserved += segment;
                (self.segments.len() - 1, 0)
            }
        };
        let index = self.segments[seg].index(offset);
        let blocks = &mut self.segments[seg].blocks;
        let remaining = blocks[index].size - size;
        let split = if small {
            remaining >= MIN_BLOCK
        } else {
            remaining > SMALL_SIZE
        };
        if split {
            blocks[index].size = size;
            blocks.insert(
                index + 1,
                Block {
                    offset: offset + size,
                    size: remaining,
                    owner: None,
                },
            );
        }
        blocks[index].owner = Some(id);
        let taken = blocks[index].size;
        if split {
            self.pool(small).insert((remaining, seg, offset + size));
        }
        self.allocated += taken;
        self.handles.push(Some((seg, offset)));
        self.peak_allocated = self.peak_allocated.max(self.allocated);
        self.peak_reserved = self.peak_reserved.max(self.reserved);
        Some(Handle(id))
    }

    /// Frees an allocation: its block merges with free neighbours and stays cached.
    pub fn free(&mut self, handle: Option<Handle>) {
        let Some(Handle(id)) = handle else { return };
        let Some((seg, offset)) = self.handles[id].take() else {
            return;
        };
        let small = self.segments[seg].small;
        let mut i = self.segments[seg].index(offset);
        let mut merged = Vec::new();
        {
            let blocks = &mut self.segments[seg].blocks;
            self.allocated -= blocks[i].size;
            blocks[i].owner = None;
            if i + 1 < blocks.len() && blocks[i + 1].owner.is_none() {
                let next = blocks.remove(i + 1);
                merged.push((next.size, seg, next.offset));
                blocks[i].size += next.size;
            }
            if i > 0 && blocks[i - 1].owner.is_none() {
                merged.push((blocks[i - 1].size, seg, blocks[i - 1].offset));
                let this = blocks.remove(i);
                i -= 1;
                blocks[i].size += this.size;
            }
        }
        let block = &self.segments[seg].blocks[i];
        let key = (block.size, seg, block.offset);
        let pool = self.pool(small);
        for old in merged {
            pool.remove(&old);
        }
        pool.insert(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_to_blocks_and_segments() {
        assert_eq!(round_size(1), 512);
        assert_eq!(round_size(513), 1024);
        assert_eq!(segment_size(round_size(1000)), SMALL_BUFFER);
        assert_eq!(segment_size(round_size(3 << 20)), LARGE_BUFFER);
        assert_eq!(segment_size(round_size((11 << 20) + 1)), 12 << 20);
    }

    #[test]
    fn freed_blocks_are_cached_and_reused() {
        let mut a = CachingAllocator::default();
        let x = a.malloc(3 << 20);
        assert_eq!((a.allocated(), a.reserved()), (3 << 20, LARGE_BUFFER));
        // The 17 MiB left of the segment serves the next request.
        let y = a.malloc(5 << 20);
        assert_eq!(a.reserved(), LARGE_BUFFER);
        a.free(x);
        a.free(y);
        assert_eq!((a.allocated(), a.reserved()), (0, LARGE_BUFFER));
        // Merged again: a 20 MiB request fits the cached segment.
        a.malloc(20 << 20);
        assert_eq!(a.reserved(), LARGE_BUFFER);
        assert_eq!(a.peak_allocated, 20 << 20);
    }

    #[test]
    fn a_large_remainder_of_one_mib_or_less_is_not_split_off() {
        let mut a = CachingAllocator::default();
        let x = a.malloc(12 << 20);
        a.free(x);
        // 12 MiB cached; 11.5 MiB leaves 0.5 MiB, which stays with the block.
        a.malloc((23 << 20) / 2);
        assert_eq!(a.allocated(), 12 << 20);
    }

    #[test]
    fn requests_past_any_card_run_out_of_memory_without_overflow() {
        let mut a = CachingAllocator::with_limit(80 << 30);
        let handles: Vec<_> = (0..1000).map(|_| a.malloc(u64::MAX)).collect();
        assert!(a.out_of_memory);
        assert_eq!(a.reserved(), 1000 * MAX_REQUEST);
        for h in handles {
            a.free(h);
        }
        assert_eq!(a.allocated(), 0);
    }

    #[test]
    fn at_the_limit_cached_segments_go_back_before_a_request_fails() {
        let mut a = CachingAllocator::with_limit(30 << 20);
        let x = a.malloc(20 << 20);
        a.free(x);
        // 26 MiB more would pass the limit: the cached 20 MiB segment is released first.
        let y = a.malloc(25 << 20);
        assert_eq!(a.reserved(), 26 << 20);
        assert!(!a.out_of_memory);
        // Held, it cannot be released: the next segment is past the limit.
        a.malloc(12 << 20);
        assert!(a.out_of_memory);
        assert_eq!(a.reserved(), (26 + 12) << 20);
        a.free(y);
    }
}
