//! Memory for hash tables: sized from a budget, asked for fallibly, zeroed lazily.
//!
//! Design: the transposition table and the proof table are sized by the user (`Hash`, `prove
//! --memory`), so asking for them must never abort the process. `zeroed_slice` first checks the
//! request against what the machine can give (on Linux, `MemAvailable` in `/proc/meminfo`: an
//! over-committed allocation would succeed and then get the process killed when its pages are
//! touched), then asks the allocator for zeroed memory and returns an error if it refuses. A
//! large zeroed allocation comes as fresh pages from the operating system, which cost nothing
//! until they are written: setting a large `Hash` is instant, and the table's memory is only
//! taken as the search fills it.

use std::{
    alloc::{self, Layout},
    ptr,
    sync::atomic::AtomicU64,
};

use thiserror::Error;

const MIB: usize = 1 << 20;

/// A table that cannot be had.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("cannot allocate {} MiB: {reason}", .bytes.div_ceil(MIB))]
pub struct AllocError {
    /// The size asked for.
    pub bytes: usize,
    pub reason: String,
}

/// Types whose all-zero bit pattern is a valid value, so a table of them can come zeroed from
/// the allocator.
///
/// # Safety
/// Implement only for types for which every field is valid when all its bytes are zero (integers,
/// atomic integers, arrays and structs of those).
pub unsafe trait Zeroable {}

// SAFETY: zero is a valid `u64`.
unsafe impl Zeroable for u64 {}
// SAFETY: an `AtomicU64` has the representation of a `u64`; zero is valid.
unsafe impl Zeroable for AtomicU64 {}

/// The number of buckets of `bucket_bytes` each that fit in `megabytes` MiB, rounded down to a
/// power of two (so that a key's low bits choose the bucket), and at least one.
pub fn buckets_for(megabytes: usize, bucket_bytes: usize) -> usize {
    let bytes = megabytes.max(1).saturating_mul(MIB);
    let buckets = (bytes / bucket_bytes.max(1)).max(1);
    if buckets.is_power_of_two() {
        buckets
    } else {
        buckets.next_power_of_two() / 2
    }
}

/// Memory the machine can still give, in bytes, if it says (Linux: `MemAvailable`).
pub fn available_bytes() -> Option<usize> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// Checks that `bytes` more can be had, counting `reclaimed` bytes that will be freed when the
/// new memory replaces old.
pub fn check_available(bytes: usize, reclaimed: usize) -> Result<(), AllocError> {
    match available_bytes() {
        Some(available) if bytes > available.saturating_add(reclaimed) => Err(AllocError {
            bytes,
            reason: format!(
                "the machine has {} MiB available",
                available.saturating_add(reclaimed) / MIB
            ),
        }),
        _ => Ok(()),
    }
}

/// The allocator's alignment below which zeroed memory comes from `calloc`, which takes fresh
/// pages from the operating system as they are. A larger alignment makes the allocator write
/// the zeros itself, touching every page; so a table's own alignment is reached by offsetting
/// into a slightly larger allocation instead.
const CALLOC_ALIGN: usize = 16;

/// A fixed-size table of zeroed values: a slice that came from the allocator as zeroed memory,
/// aligned for `T` (a cache line for the transposition table's buckets).
pub struct ZeroedTable<T: Zeroable> {
    raw: ptr::NonNull<u8>,
    layout: Layout,
    data: ptr::NonNull<T>,
    len: usize,
}

// SAFETY: the table owns its values like a `Box<[T]>` does.
unsafe impl<T: Zeroable + Send> Send for ZeroedTable<T> {}
// SAFETY: shared access only hands out `&[T]`.
unsafe impl<T: Zeroable + Sync> Sync for ZeroedTable<T> {}

impl<T: Zeroable> ZeroedTable<T> {
    /// `count` zeroed values, or an error if the machine cannot give them. `reclaimed` bytes are
    /// about to be freed (a table this one replaces) and count as available.
    pub fn new(count: usize, reclaimed: usize) -> Result<ZeroedTable<T>, AllocError> {
        let too_big = || AllocError {
            bytes: usize::MAX,
            reason: "larger than the address space".to_string(),
        };
        let bytes = count
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(too_big)?;
        let padded = bytes
            .checked_add(std::mem::align_of::<T>())
            .ok_or_else(too_big)?;
        let layout = Layout::from_size_align(padded, CALLOC_ALIGN).map_err(|_| too_big())?;
        check_available(bytes, reclaimed)?;
        // SAFETY: the layout's size is at least `align_of::<T>()`, so not zero.
        let raw = ptr::NonNull::new(unsafe { alloc::alloc_zeroed(layout) }).ok_or(AllocError {
            bytes,
            reason: "the allocator refused".to_string(),
        })?;
        let offset = raw.as_ptr().align_offset(std::mem::align_of::<T>());
        if offset >= std::mem::align_of::<T>() {
            // SAFETY: `raw` was allocated above with `layout`.
            unsafe { alloc::dealloc(raw.as_ptr(), layout) };
            return Err(AllocError {
                bytes,
                reason: "the memory cannot be aligned".to_string(),
            });
        }
        // SAFETY: `offset < align_of::<T>()`, and the allocation has `align_of::<T>()` bytes more
        // than the values need, so `count` values from `raw + offset` lie inside it.
        let data = unsafe { raw.add(offset) }.cast::<T>();
        Ok(ZeroedTable {
            raw,
            layout,
            data,
            len: count,
        })
    }

    /// Like [`Self::new`] for sizes the program chose itself: failure is the allocator's usual
    /// out-of-memory abort.
    pub fn new_or_abort(count: usize) -> ZeroedTable<T> {
        match ZeroedTable::new(count, usize::MAX) {
            Ok(table) => table,
            Err(_) => alloc::handle_alloc_error(Layout::new::<T>()),
        }
    }
}

impl<T: Zeroable> std::ops::Deref for ZeroedTable<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `data` points at `len` values inside the allocation, aligned for `T`, all
        // valid because they were zeroed and `T: Zeroable`; `&self` guards shared access.
        unsafe { std::slice::from_raw_parts(self.data.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> std::ops::DerefMut for ZeroedTable<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`; `&mut self` guards exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.data.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> Drop for ZeroedTable<T> {
    fn drop(&mut self) {
        // SAFETY: the values are valid and owned (dropped once, here), and `raw` was allocated
        // with `layout`.
        unsafe {
            ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.data.as_ptr(), self.len));
            alloc::dealloc(self.raw.as_ptr(), self.layout);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_of_two_within_budget() {
        assert_eq!(buckets_for(1, 64), 1 << 14);
        assert_eq!(buckets_for(3, 64), 1 << 15);
        assert_eq!(buckets_for(0, 64), 1 << 14);
        assert_eq!(buckets_for(1, 1 << 30), 1);
    }

    #[repr(align(64))]
    struct Line(#[expect(dead_code, reason = "only the layout matters")] [AtomicU64; 8]);
    // SAFETY: eight atomic integers.
    unsafe impl Zeroable for Line {}

    #[test]
    fn zeroed_tables_and_refusals() {
        let mut table: ZeroedTable<u64> = ZeroedTable::new(1000, 0).expect("8 kB can be had");
        assert_eq!(table.len(), 1000);
        assert!(table.iter().all(|&w| w == 0));
        table[999] = 7;
        assert_eq!(table.iter().sum::<u64>(), 7);
        let lines: ZeroedTable<Line> = ZeroedTable::new(100, 0).expect("6 kB can be had");
        assert_eq!(lines.as_ptr() as usize % 64, 0, "aligned to a cache line");
        let empty: ZeroedTable<u64> = ZeroedTable::new(0, 0).expect("nothing can be had");
        assert!(empty.is_empty());
        // More than any address space: refused, not aborted.
        assert!(ZeroedTable::<u64>::new(usize::MAX / 4, 0).is_err());
        // More than the machine has (where it says): refused with the reason.
        if let Some(available) = available_bytes() {
            let err = ZeroedTable::<u64>::new(available / 8 + (1 << 27), 0)
                .err()
                .expect("too big");
            assert!(err.to_string().contains("available"), "{err}");
        }
    }
}
