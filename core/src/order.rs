//! Short lists put in order in place. An insertion keeps std's slice sort out of the page
//! (two copies of it, one for integers and one for floats: docs/development.md, "Keeping
//! the page small"); every list sorted here has a few dozen entries or is nearly in order.

/// Sorts `v` so that no entry is `after` the one behind it, keeping equal entries in
/// their order (a stable sort).
pub fn insertion_sort_by<T>(v: &mut [T], mut after: impl FnMut(&T, &T) -> bool) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && after(&v[j - 1], &v[j]) {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// Sorts `v` from smallest to largest.
pub fn insertion_sort<T: PartialOrd>(v: &mut [T]) {
    insertion_sort_by(v, |a, b| a > b);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_as_std_does() {
        let mut seed = 12345u32;
        for len in 0..40 {
            let mut v: Vec<u32> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    seed >> 27
                })
                .collect();
            let mut expected = v.clone();
            expected.sort_unstable();
            insertion_sort(&mut v);
            assert_eq!(v, expected);
        }
    }

    #[test]
    fn floats_by_total_order_and_stable() {
        let floats = [2.0, -0.0, f64::NAN, 0.0, -1.5, 2.0];
        let (mut v, mut expected) = (floats, floats);
        insertion_sort_by(&mut v, |a, b| a.total_cmp(b).is_gt());
        expected.sort_unstable_by(f64::total_cmp);
        assert_eq!(v.map(f64::to_bits), expected.map(f64::to_bits));

        let mut pairs = [(1, 'a'), (0, 'b'), (1, 'c'), (0, 'd')];
        insertion_sort_by(&mut pairs, |a, b| a.0 > b.0);
        assert_eq!(pairs, [(0, 'b'), (0, 'd'), (1, 'a'), (1, 'c')]);
    }
}
