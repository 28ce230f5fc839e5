//! Guest linear memories that outlive their instance: when a provider
//! instance ends, its memory is wiped and kept for the next instance of the
//! engine instead of being unmapped.
//!
//! A fresh instance's memory is fresh anonymous memory: every page the guest
//! first writes is a page fault, a real share of a cold scan. A native scan reuses the pages its allocator
//! already holds; this gives the sandbox the same. The wipe happens when the
//! instance ends, and it is complete: every page the instance could have
//! written is either zeroed by hand (pages in RAM) or discarded (pages
//! elsewhere, such as swap, or past what is kept), so one provider never
//! sees another's bytes. A kept memory holds at most [`KEEP_BYTES`] in RAM
//! and at most [`MAX_SPARES`] are kept, so an idle engine holds little.
//!
//! Each memory is its own reservation with guard regions before and after,
//! laid out as wasmtime lays out its own (so bounds checks stay elided and
//! an access past the end traps), and the store's memory cap still decides
//! every growth before the memory sees it. Linux only: elsewhere the engine
//! keeps wasmtime's own memories.

use std::ptr::NonNull;
use std::sync::{Arc, Mutex};
use wasmtime::{LinearMemory, MemoryCreator, MemoryType};

/// Bytes of a kept memory that stay in RAM (zeroed); pages past them are
/// handed back to the system.
pub(crate) const KEEP_BYTES: usize = 16 << 20;
/// Memories kept for reuse, at most.
pub(crate) const MAX_SPARES: usize = 2;

/// The engine's memory creator and its kept memories.
#[derive(Default)]
pub(crate) struct Memories {
    spares: Mutex<Spares>,
}

#[derive(Default)]
struct Spares {
    regions: Vec<Region>,
    /// Memories handed out from a kept one.
    reused: u64,
}

impl Memories {
    /// How many memories were handed out from kept ones so far.
    pub(crate) fn reused(&self) -> u64 {
        self.spares.lock().map_or(0, |s| s.reused)
    }

    /// How many memories are kept now.
    #[cfg(test)]
    pub(crate) fn kept(&self) -> usize {
        self.spares.lock().map_or(0, |s| s.regions.len())
    }

    fn take(&self, reservation: usize, guard: usize) -> Option<Region> {
        let mut spares = self.spares.lock().ok()?;
        let at = spares
            .regions
            .iter()
            .position(|r| r.reservation == reservation && r.guard == guard)?;
        spares.reused += 1;
        Some(spares.regions.swap_remove(at))
    }

    fn give_back(&self, mut region: Region) {
        let full = || {
            self.spares
                .lock()
                .map_or(true, |s| s.regions.len() >= MAX_SPARES)
        };
        // Not wiped for nothing when it would not be kept; a memory that
        // cannot be wiped is not kept either (dropping it unmaps it).
        if full() || region.wipe().is_err() {
            return;
        }
        if let Ok(mut spares) = self.spares.lock()
            && spares.regions.len() < MAX_SPARES
        {
            spares.regions.push(region);
        }
    }
}

/// One mapping: `guard` bytes, the `reservation` the memory may grow in,
/// `guard` bytes; only the first `accessible` bytes of the reservation are
/// readable and writable.
struct Region {
    start: NonNull<u8>,
    reservation: usize,
    guard: usize,
    accessible: usize,
}

// SAFETY: the region is plain memory owned by exactly one memory (or the
// spare list) at a time; wasmtime synchronises the guest's accesses.
unsafe impl Send for Region {}
// SAFETY: as above; `&Region` only reads its fields.
unsafe impl Sync for Region {}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096).max(1)
}

fn round_up(bytes: usize, page: usize) -> Option<usize> {
    bytes.checked_next_multiple_of(page)
}

fn os_error(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

impl Region {
    /// Maps a new region with nothing accessible yet.
    fn map(reservation: usize, guard: usize) -> Result<Region, String> {
        let len = guard
            .checked_mul(2)
            .and_then(|g| g.checked_add(reservation))
            .ok_or_else(|| "memory reservation overflows".to_string())?;
        // SAFETY: a new private mapping, no address requested, nothing
        // accessible: it cannot alias anything.
        let start = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if start == libc::MAP_FAILED {
            return Err(os_error(&format!("cannot reserve {len} bytes of memory")));
        }
        let start = NonNull::new(start.cast::<u8>())
            .ok_or_else(|| "the memory reservation came back null".to_string())?;
        Ok(Region {
            start,
            reservation,
            guard,
            accessible: 0,
        })
    }

    /// Where the guest's memory begins (past the leading guard).
    fn base(&self) -> *mut u8 {
        // SAFETY: `guard` bytes into a mapping of `2 * guard + reservation`.
        unsafe { self.start.as_ptr().add(self.guard) }
    }

    /// Makes the first `bytes` (page-rounded) of the memory accessible.
    fn open_to(&mut self, bytes: usize) -> Result<(), String> {
        let want = round_up(bytes, page_size())
            .filter(|w| *w <= self.reservation)
            .ok_or_else(|| {
                format!(
                    "cannot grow memory to {bytes} bytes: its reservation is {} bytes",
                    self.reservation
                )
            })?;
        if want <= self.accessible {
            return Ok(());
        }
        // SAFETY: the range lies inside this region's reservation, which
        // only this memory uses.
        let done = unsafe {
            libc::mprotect(
                self.base().add(self.accessible).cast(),
                want - self.accessible,
                libc::PROT_READ | libc::PROT_WRITE,
            )
        };
        if done != 0 {
            return Err(os_error(&format!("cannot grow memory to {bytes} bytes")));
        }
        self.accessible = want;
        Ok(())
    }

    /// Leaves the region as a fresh one: nothing accessible, every byte
    /// zero, at most [`KEEP_BYTES`] of it in RAM.
    fn wipe(&mut self) -> Result<(), String> {
        let page = page_size();
        let kept = self.accessible.min(KEEP_BYTES);
        let base = self.base();
        if self.accessible > kept {
            // SAFETY: inside the reservation; discarding private anonymous
            // pages makes them read as zero.
            discard(unsafe { base.add(kept) }, self.accessible - kept)?;
        }
        // Pages in RAM are zeroed in place (kept for the next instance);
        // any other page (never touched, or swapped out) is discarded.
        let pages = kept / page;
        let mut resident = vec![0u8; pages];
        // SAFETY: `resident` has one byte per page of the range.
        let known = unsafe { libc::mincore(base.cast(), kept, resident.as_mut_ptr()) } == 0;
        if !known {
            resident.fill(1);
        }
        let mut page_at = 0;
        while page_at < pages {
            let in_ram = resident[page_at] & 1 == 1;
            let run = resident[page_at..]
                .iter()
                .take_while(|r| (*r & 1 == 1) == in_ram)
                .count();
            // SAFETY: `run` pages from `page_at`, inside the accessible part.
            let at = unsafe { base.add(page_at * page) };
            if in_ram {
                // SAFETY: readable and writable, owned by this region alone.
                unsafe { std::ptr::write_bytes(at, 0, run * page) };
            } else {
                discard(at, run * page)?;
            }
            page_at += run;
        }
        // SAFETY: inside the reservation.
        if unsafe { libc::mprotect(base.cast(), self.accessible, libc::PROT_NONE) } != 0 {
            return Err(os_error("cannot close a kept memory"));
        }
        self.accessible = 0;
        Ok(())
    }
}

fn discard(at: *mut u8, len: usize) -> Result<(), String> {
    // SAFETY: callers pass a range of a region they own.
    if unsafe { libc::madvise(at.cast(), len, libc::MADV_DONTNEED) } != 0 {
        return Err(os_error("cannot discard memory pages"));
    }
    Ok(())
}

impl Drop for Region {
    fn drop(&mut self) {
        let len = self.reservation + 2 * self.guard;
        // SAFETY: the whole mapping made in `map`, no longer used.
        unsafe { libc::munmap(self.start.as_ptr().cast(), len) };
    }
}

/// A guest's linear memory; its region goes back to [`Memories`] when the
/// instance drops it.
struct Memory {
    region: Option<Region>,
    size: usize,
    home: Arc<Memories>,
}

impl Drop for Memory {
    fn drop(&mut self) {
        if let Some(region) = self.region.take() {
            self.home.give_back(region);
        }
    }
}

impl Memory {
    fn region(&self) -> Option<&Region> {
        self.region.as_ref()
    }
}

// SAFETY: the memory never moves (its reservation covers every size it can
// grow to), `byte_size` bytes from `as_ptr` are readable and writable, and
// the guard past the reservation is never mapped accessible.
unsafe impl LinearMemory for Memory {
    fn byte_size(&self) -> usize {
        self.size
    }

    fn byte_capacity(&self) -> usize {
        self.region().map_or(0, |r| r.reservation)
    }

    fn grow_to(&mut self, new_size: usize) -> wasmtime::Result<()> {
        let region = self
            .region
            .as_mut()
            .ok_or_else(|| wasmtime::Error::msg("memory already released"))?;
        region.open_to(new_size).map_err(wasmtime::Error::msg)?;
        self.size = new_size;
        Ok(())
    }

    fn as_ptr(&self) -> *mut u8 {
        self.region()
            .map_or(std::ptr::null_mut(), |region| region.base())
    }
}

/// The [`MemoryCreator`] the engine is configured with.
#[derive(Clone, Default)]
pub(crate) struct Creator(pub(crate) Arc<Memories>);

// SAFETY: every memory is zero-filled (fresh or wiped), has
// `reserved_size_in_bytes` of reservation followed by
// `guard_size_in_bytes` never accessible, and never moves.
unsafe impl MemoryCreator for Creator {
    fn new_memory(
        &self,
        ty: MemoryType,
        minimum: usize,
        _maximum: Option<usize>,
        reserved_size_in_bytes: Option<usize>,
        guard_size_in_bytes: usize,
    ) -> Result<Box<dyn LinearMemory>, String> {
        if ty.is_shared() {
            return Err("shared memories are not supported".to_string());
        }
        let page = page_size();
        // Without a reservation asked for, reserve as wasmtime does for a
        // 32-bit memory: all it can address.
        let reservation = reserved_size_in_bytes
            .unwrap_or(4 << 30)
            .checked_next_multiple_of(page)
            .ok_or_else(|| "memory reservation overflows".to_string())?;
        let guard = round_up(guard_size_in_bytes, page)
            .ok_or_else(|| "memory guard size overflows".to_string())?;
        let mut region = match self.0.take(reservation, guard) {
            Some(region) => region,
            None => Region::map(reservation, guard)?,
        };
        if let Err(e) = region.open_to(minimum) {
            self.0.give_back(region);
            return Err(e);
        }
        Ok(Box::new(Memory {
            region: Some(region),
            size: minimum,
            home: self.0.clone(),
        }))
    }
}

#[cfg(test)]
#[path = "memory_tests.rs"]
mod tests;
