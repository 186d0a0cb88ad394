//! Did-you-mean for counter names: the known names closest to a misspelled one.

/// Up to three of `known` that `name` was probably meant to be, closest first: a small edit
/// distance (ignoring case), or the known name contains what was typed.
pub fn suggestions<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let typed = name.to_ascii_uppercase();
    let budget = (typed.len() / 4).clamp(2, 4);
    let mut close: Vec<(usize, &str)> = known
        .into_iter()
        .filter_map(|candidate| {
            let upper = candidate.to_ascii_uppercase();
            let distance = edit_distance(&typed, &upper);
            if distance <= budget {
                Some((distance, candidate))
            } else if typed.len() >= 4 && upper.contains(&typed) {
                Some((budget + 1 + upper.len() - typed.len(), candidate))
            } else {
                None
            }
        })
        .collect();
    close.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)));
    close.dedup_by(|a, b| a.1 == b.1);
    close.into_iter().take(3).map(|(_, c)| c).collect()
}

/// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two
/// neighbours, which together cover most typing slips.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let width = b.len() + 1;
    let mut rows = vec![0usize; (a.len() + 1) * width];
    for (j, cell) in rows.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        rows[i * width] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[(i - 1) * width + j] + 1)
                .min(rows[i * width + j - 1] + 1)
                .min(rows[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[(i - 2) * width + j - 2] + 1);
            }
            rows[i * width + j] = best;
        }
    }
    rows[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[&str] = &["SQ_WAVES", "SQ_WAVE_CYCLES", "SQ_INSTS_VALU", "SQ_INSTS_SALU", "TCC_HIT_sum", "TCC_HIT"];

    #[test]
    fn slips_find_the_counter_meant() {
        assert_eq!(suggestions("SQ_WAVSE", KNOWN.iter().copied())[0], "SQ_WAVES");
        assert_eq!(suggestions("sq_waves", KNOWN.iter().copied())[0], "SQ_WAVES");
        assert_eq!(suggestions("SQ_INST_VALU", KNOWN.iter().copied())[0], "SQ_INSTS_VALU");
        assert_eq!(suggestions("TCC_HITS", KNOWN.iter().copied())[0], "TCC_HIT");
    }

    #[test]
    fn nothing_close_suggests_nothing() {
        assert!(suggestions("GL2C_EA_RDREQ_32B", KNOWN.iter().copied()).is_empty());
    }

    #[test]
    fn the_distance_counts_swaps_as_one() {
        assert_eq!(edit_distance("ABCD", "ABDC"), 1);
        assert_eq!(edit_distance("", "ABC"), 3);
        assert_eq!(edit_distance("KITTEN", "SITTING"), 3);
    }
}
