use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting what reaches it.
#[derive(Default)]
struct Counting {
    allocs: AtomicUsize,
    bytes: AtomicUsize,
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.allocs.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        unsafe { System.dealloc(block, layout) }
    }
}

fn layout(size: usize, align: usize) -> Layout {
    Layout::from_size_align(size, align).unwrap()
}

#[test]
fn every_small_size_gets_the_smallest_class_that_holds_it() {
    for size in 1..=MAX_SMALL {
        let class = class_of(size);
        assert!(SIZES[class] >= size, "{size} in {}", SIZES[class]);
        assert!(class == 0 || SIZES[class - 1] < size, "{size}");
    }
    assert!(SIZES.iter().all(|s| s % MAX_ALIGN == 0));
}

#[test]
fn blocks_are_aligned_distinct_and_reused_once_freed() {
    let heap = SizeClasses::new(Counting::default());
    unsafe {
        let a = heap.alloc(layout(24, 8));
        let b = heap.alloc(layout(24, 16));
        assert!(!a.is_null() && !b.is_null() && a != b);
        assert_eq!(a as usize % 16, 0);
        assert_eq!(b as usize % 16, 0);
        assert!((b as usize).abs_diff(a as usize) >= 32, "blocks overlap");
        heap.dealloc(a, layout(24, 8));
        // Same class (17..=32 bytes): the freed block comes back.
        let c = heap.alloc(layout(30, 1));
        assert_eq!(c, a);
        // Another class never gets it.
        heap.dealloc(c, layout(30, 1));
        let d = heap.alloc(layout(100, 4));
        assert_ne!(d, a);
        heap.dealloc(b, layout(24, 16));
        heap.dealloc(d, layout(100, 4));
    }
    // All of that came out of one chunk.
    assert_eq!(heap.inner.allocs.load(Ordering::Relaxed), 1);
    assert_eq!(heap.inner.bytes.load(Ordering::Relaxed), CHUNK);
}

#[test]
fn large_or_overaligned_requests_go_to_the_inner_allocator() {
    let heap = SizeClasses::new(Counting::default());
    unsafe {
        let big = heap.alloc(layout(MAX_SMALL + 1, 8));
        let aligned = heap.alloc(layout(64, 32));
        assert_eq!(aligned as usize % 32, 0);
        assert_eq!(heap.inner.allocs.load(Ordering::Relaxed), 2);
        assert_eq!(heap.inner.bytes.load(Ordering::Relaxed), MAX_SMALL + 1 + 64);
        heap.dealloc(big, layout(MAX_SMALL + 1, 8));
        heap.dealloc(aligned, layout(64, 32));
    }
}

#[test]
fn realloc_keeps_the_contents_across_classes_and_to_and_from_large() {
    let heap = SizeClasses::new(Counting::default());
    unsafe {
        let mut size = 5;
        let mut block = heap.alloc(layout(size, 1));
        for (i, byte) in (0..size).zip(1u8..) {
            block.add(i).write(byte);
        }
        // Within a class the block stays put.
        let same = heap.realloc(block, layout(size, 1), 16);
        assert_eq!(same, block);
        size = 16;
        for new_size in [40, 300, 4000, 100_000, 600, 7] {
            block = heap.realloc(block, layout(size, 1), new_size);
            assert!(!block.is_null());
            let kept = size.min(new_size).min(5);
            let bytes = std::slice::from_raw_parts(block, kept);
            assert_eq!(bytes, &[1, 2, 3, 4, 5][..kept], "{size} -> {new_size}");
            size = new_size;
        }
        heap.dealloc(block, layout(size, 1));
    }
}

#[test]
fn many_blocks_of_mixed_sizes_never_overlap() {
    let heap = SizeClasses::new(Counting::default());
    let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
    let mut seed: u32 = 0x9E37_79B9;
    let mut next = |n: u32| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed % n
    };
    unsafe {
        for round in 0..20_000u32 {
            if live.len() > 200 || (!live.is_empty() && next(3) == 0) {
                let (block, layout, tag) = live.swap_remove(next(live.len() as u32) as usize);
                let bytes = std::slice::from_raw_parts(block, layout.size());
                assert!(bytes.iter().all(|&b| b == tag), "a block was overwritten");
                heap.dealloc(block, layout);
            } else {
                let size = 1 + next(700) as usize;
                let align = 1 << next(5);
                let layout = layout(size, align);
                let block = heap.alloc(layout);
                assert!(!block.is_null());
                assert_eq!(block as usize % align, 0);
                let tag = (round % 251) as u8;
                block.write_bytes(tag, size);
                live.push((block, layout, tag));
            }
        }
        for (block, layout, tag) in live {
            let bytes = std::slice::from_raw_parts(block, layout.size());
            assert!(bytes.iter().all(|&b| b == tag), "a block was overwritten");
            heap.dealloc(block, layout);
        }
    }
}
