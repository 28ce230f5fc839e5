//! A small-object allocator for providers.
//!
//! A snapshot of a thousand skills makes and frees tens of thousands of
//! small strings (names, descriptions, paths, parse scratch). Inside the
//! sandbox a general-purpose allocator spends about a quarter of the
//! provider's time on them: its bins and boundary tags cost tens of
//! instructions per call, where a free list per size costs a handful.
//!
//! [`SizeClasses`] serves every request of at most [`MAX_SMALL`] bytes (and
//! alignment at most 16) from sixteen size classes: a freed block goes on
//! its class's free list and the next request of that class takes it back;
//! an empty list is refilled from a chunk obtained from the inner allocator.
//! `dealloc` is told the size, so blocks carry no header. Larger requests go
//! to the inner allocator untouched. Memory a class once held stays with
//! that class (a provider's allocations repeat from call to call, so it is
//! reused, and the sandbox's memory limit still bounds the whole).
//!
//! A provider opts in with one line (the first-party providers do):
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: skillhost_guest_sdk::alloc::SizeClasses = skillhost_guest_sdk::alloc::SizeClasses::system();
//! ```
//!
//! It is for single-threaded guests only (a component without shared
//! memory, which is every `wasm32-wasip2` component): it takes no lock, and
//! is `Sync` only on such a target.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr;

/// The largest request served from the size classes, in bytes.
pub const MAX_SMALL: usize = 512;
/// The largest alignment served from the size classes.
const MAX_ALIGN: usize = 16;
/// Bytes taken from the inner allocator at a time to cut blocks from.
/// Large enough that a scan of a thousand skills grows the guest's memory
/// a dozen times rather than forty (each growth is a call into the host
/// and a change of the memory's protection there).
const CHUNK: usize = 256 * 1024;
/// Block sizes: every one a multiple of 16, so every block cut from a
/// 16-aligned chunk is 16-aligned.
const SIZES: [usize; 16] = [
    16, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512,
];

/// The size class of a small request (`1 <= size <= MAX_SMALL`).
fn class_of(size: usize) -> usize {
    match size {
        0..=128 => size.saturating_sub(1) / 16,
        129..=256 => 8 + (size - 129) / 32,
        _ => 12 + (size - 257) / 64,
    }
}

/// Whether a request is served from the size classes.
fn is_small(layout: Layout) -> bool {
    layout.size() <= MAX_SMALL && layout.align() <= MAX_ALIGN
}

struct State {
    /// The first free block of each class; each free block holds the next.
    free: [*mut u8; SIZES.len()],
    /// Where the next new block is cut from the current chunk, and its end.
    next: *mut u8,
    end: *mut u8,
}

/// Small requests from per-size free lists, the rest from `A` (see the
/// module documentation).
pub struct SizeClasses<A = System> {
    inner: A,
    state: UnsafeCell<State>,
}

// SAFETY: without the `atomics` target feature a WebAssembly module has
// one thread, so the state is never touched from two threads at once.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
unsafe impl<A: Sync> Sync for SizeClasses<A> {}

impl SizeClasses<System> {
    /// Size classes over the system allocator.
    pub const fn system() -> Self {
        Self::new(System)
    }
}

impl<A> SizeClasses<A> {
    /// Size classes over `inner`.
    pub const fn new(inner: A) -> Self {
        SizeClasses {
            inner,
            state: UnsafeCell::new(State {
                free: [ptr::null_mut(); SIZES.len()],
                next: ptr::null_mut(),
                end: ptr::null_mut(),
            }),
        }
    }
}

impl<A: GlobalAlloc> SizeClasses<A> {
    /// A block of `class`, from its free list or cut anew.
    ///
    /// # Safety
    /// No other call on this allocator may run at the same time.
    unsafe fn small(&self, class: usize) -> *mut u8 {
        // SAFETY: the caller guarantees exclusive access to the state.
        let state = unsafe { &mut *self.state.get() };
        let head = state.free[class];
        if !head.is_null() {
            // SAFETY: a free block of this class holds the next one's
            // address, written by `dealloc`; blocks are 16-aligned.
            state.free[class] = unsafe { head.cast::<*mut u8>().read() };
            return head;
        }
        let size = SIZES[class];
        if (state.end as usize) - (state.next as usize) < size {
            // What is left of the old chunk (less than one block) is not used.
            // SAFETY: a valid, non-zero layout.
            let chunk = unsafe {
                self.inner
                    .alloc(Layout::from_size_align_unchecked(CHUNK, MAX_ALIGN))
            };
            if chunk.is_null() {
                return ptr::null_mut();
            }
            state.next = chunk;
            // SAFETY: the chunk is CHUNK bytes long.
            state.end = unsafe { chunk.add(CHUNK) };
        }
        let block = state.next;
        // SAFETY: at least `size` bytes are left in the chunk.
        state.next = unsafe { block.add(size) };
        block
    }
}

// SAFETY: every block handed out is at least as large as asked, aligned to
// 16 (>= the alignment asked for small requests), and handed out once until
// freed; large requests are the inner allocator's.
unsafe impl<A: GlobalAlloc> GlobalAlloc for SizeClasses<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_small(layout) {
            // SAFETY: the allocator is only used from one thread (see `Sync`).
            unsafe { self.small(class_of(layout.size())) }
        } else {
            // SAFETY: forwarded as the caller gave it.
            unsafe { self.inner.alloc(layout) }
        }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        if !is_small(layout) {
            // SAFETY: a large block came from the inner allocator.
            unsafe { self.inner.dealloc(block, layout) };
            return;
        }
        let class = class_of(layout.size());
        // SAFETY: exclusive access (one thread); the block is ours, of this
        // class, at least 16 bytes and 16-aligned, so it can hold a pointer.
        unsafe {
            let state = &mut *self.state.get();
            block.cast::<*mut u8>().write(state.free[class]);
            state.free[class] = block;
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `new_size` is non-zero and fits the layout rules, as the
        // caller of `realloc` guarantees.
        let grown = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (is_small(layout), is_small(grown)) {
            (true, true) if class_of(layout.size()) == class_of(new_size) => block,
            // SAFETY: a large block came from the inner allocator.
            (false, false) => unsafe { self.inner.realloc(block, layout, new_size) },
            _ => {
                // SAFETY: a valid layout; the old block holds `layout.size()`
                // bytes and the new one at least `new_size`.
                unsafe {
                    let moved = self.alloc(grown);
                    if !moved.is_null() {
                        ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                        self.dealloc(block, layout);
                    }
                    moved
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "alloc_tests.rs"]
mod tests;
