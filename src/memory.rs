//! Sizing hash tables from a memory budget.

/// The number of buckets of `bucket_bytes` each that fit in `megabytes` MiB, rounded down to a
/// power of two (so that a key's low bits choose the bucket), and at least one.
pub fn buckets_for(megabytes: usize, bucket_bytes: usize) -> usize {
    let bytes = megabytes.max(1).saturating_mul(1 << 20);
    let buckets = (bytes / bucket_bytes.max(1)).max(1);
    if buckets.is_power_of_two() {
        buckets
    } else {
        buckets.next_power_of_two() / 2
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
}
